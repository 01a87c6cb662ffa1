import type { Readiness } from '../readiness.js'
import { reply } from './reply.js'
import type { Router } from './router.js'

const JSON_TYPE = 'application/json'

/**
 * The probes: `GET /health` (liveness: the process answers, nothing else is looked at) and
 * `GET /ready` (readiness: every dependency answers; 503 with `Retry-After` naming the
 * failing one, and while the process shuts down). No credentials: load balancers and
 * orchestrators call them.
 */
export function probeRoutes(r: Router, readiness: Readiness, isClosing: () => boolean): void {
  r.get('/health', () => reply.json(200, { status: 'ok' }), { public: true, produces: JSON_TYPE })
  r.get(
    '/ready',
    async () => {
      if (isClosing()) return reply.json(503, { status: 'shutting down', checks: {} }, { 'Retry-After': '5' })
      const { ready, checks } = await readiness.report()
      return ready
        ? reply.json(200, { status: 'ready', checks })
        : reply.json(503, { status: 'unavailable', checks }, { 'Retry-After': '5' })
    },
    { public: true, produces: JSON_TYPE },
  )
}
