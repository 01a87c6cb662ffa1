import { type Server, createServer } from 'node:http'
import { listenOn } from '../http/listen.js'

/** What the listener serves: one process's registry, or the sum of a cluster's (metrics-cluster.ts). */
export interface MetricsSource {
  /** The exposition text, and its content type. */
  scrape(): Promise<{ body: string; type: string }>
}

/**
 * The metrics listener (`metrics.host`:`metrics.port`, 127.0.0.1 by default): `GET /metrics`
 * in Prometheus's text format, nothing else, no credentials (keep it off public networks). A
 * listener of its own, never the API's: scrapes do not count as API requests, and the API
 * port exposes nothing of the process.
 */
export async function listenMetrics(
  metrics: MetricsSource,
  port: number,
  host: string,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: the metrics are at GET /metrics\n')
      return
    }
    metrics.scrape().then(
      ({ body, type }) => res.writeHead(200, { 'Content-Type': type }).end(body),
      () => res.writeHead(503, { 'Content-Type': 'text/plain', 'Retry-After': '5' }).end('Metrics unavailable\n'),
    )
  })
  const address = await listenOn(server, port, host, {
    port: 'metrics.port (MEDIACTL_METRICS__PORT; 0: no metrics)',
    host: 'metrics.host (MEDIACTL_METRICS__HOST)',
  })
  const shown = address.address.includes(':') ? `[${address.address}]` : address.address
  return { server, url: `http://${shown}:${address.port}/metrics` }
}
