import type { Readiness } from '../readiness.js'
import { reply } from './reply.js'
import type { Router } from './router.js'

const JSON_TYPE = 'application/json'

/**
 * The probes: `GET /health` (liveness: the process answers, nothing else is looked at) and
 * `GET /ready` (readiness: every dependency answers; 503 with `Retry-After` naming the
 * failing one, and while the process shuts down). No credentials: load balancers and
 * orchestrators call them. In an HTTP process of a cluster, `headers` name it
 * (`X-Mediactl-Process`), so that an operator can tell which process answered.
 */
export function probeRoutes(
  r: Router,
  readiness: Readiness,
  isClosing: () => boolean,
  headers: () => Record<string, string>,
): void {
  r.get('/health', () => reply.json(200, { status: 'ok' }, headers()), { public: true, produces: JSON_TYPE })
  r.get(
    '/ready',
    async () => {
      const unavailable = { 'Retry-After': '5', ...headers() }
      if (isClosing()) return reply.json(503, { status: 'shutting down', checks: {} }, unavailable)
      const { ready, checks } = await readiness.report()
      return ready
        ? reply.json(200, { status: 'ready', checks }, headers())
        : reply.json(503, { status: 'unavailable', checks }, unavailable)
    },
    { public: true, produces: JSON_TYPE },
  )
}
