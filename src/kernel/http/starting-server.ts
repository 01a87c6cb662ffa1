import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '../log.js'
import { API_VERSION, errorDocument } from './app.js'
import { HttpError } from './errors.js'
import { listenOn } from './listen.js'
import { XML_CONTENT_TYPE } from './negotiate.js'
import { type ServerLimits, createHttpServer } from './server.js'
import { renderXml } from './xml.js'

/** A server bound before the kernel can serve: it answers the probes until `Kernel.listen` takes it over. */
export interface StartingServer {
  server: Server
  address: AddressInfo
  /** Replaces the starting answers with the kernel's pipeline, on the same socket. */
  handOver(listener: (req: IncomingMessage, res: ServerResponse) => void): void
}

const RETRY_AFTER_S = '5'
/** Names the HTTP process of a cluster that answered a probe (its number). */
export const PROCESS_HEADER = 'X-Mediactl-Process'

/**
 * Binds the port at once, before the database or Redis answer, so that an orchestrator sees
 * a live process while it waits for them: `/health` answers 200 (alive), `/ready` 503 with
 * `Retry-After` (not ready yet), and every other request 503 with `Retry-After` in the
 * contract's error format. A bind failure rejects as `listenOn` does.
 */
export async function listenWhileStarting(
  limits: ServerLimits,
  port: number,
  host: string,
  log?: Logger,
  processName?: string,
): Promise<StartingServer> {
  const named = processName ? { [PROCESS_HEADER]: processName } : {}
  const starting = (req: IncomingMessage, res: ServerResponse): void => {
    // The body is never read: it is dropped with the connection's next request or its close.
    const path = (req.url ?? '/').split('?')[0]
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, {
        'Content-Type': 'application/json',
        ...(status === 503 ? { 'Retry-After': RETRY_AFTER_S } : {}),
        ...named,
      })
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body))
    }
    if (path === '/health') return json(200, { status: 'ok' })
    if (path === '/ready') return json(503, { status: 'starting', checks: {} })
    const body = renderXml(
      errorDocument(new HttpError(503, 'The service is starting (waiting for its database or Redis): retry shortly.')),
    )
    res.writeHead(503, {
      'Content-Type': XML_CONTENT_TYPE,
      'Retry-After': RETRY_AFTER_S,
      'X-Api-Version': API_VERSION,
      // The body was not read: the connection cannot carry another request.
      Connection: 'close',
    })
    res.end(req.method === 'HEAD' ? undefined : body)
  }
  const server = createHttpServer(starting, limits, log)
  const address = await listenOn(server, port, host, {
    port: 'http.port (MEDIACTL_PORT, serve --port)',
    host: 'http.host (MEDIACTL_HOST, serve --host)',
  })
  return {
    server,
    address,
    handOver(listener) {
      server.off('request', starting)
      server.on('request', listener)
    },
  }
}
