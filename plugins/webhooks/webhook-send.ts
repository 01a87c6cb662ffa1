import http from 'node:http'
import https from 'node:https'
import { checkWebhookUrl } from './webhook-address.js'
import type { WebhookNetwork } from './webhook-network.js'

/** One delivery attempt: where, what, and how long and how much of the answer to wait for. */
export interface WebhookRequest {
  url: string
  headers: Record<string, string>
  body: string
  timeoutMs: number
  maxResponseBytes: number
}

/** What came of one attempt: an answer (`status`), or why there was none (`error`). */
export interface WebhookOutcome {
  /** HTTP status when an answer came (any status, 3xx included: redirects are never followed). */
  status: number | null
  /** Why it failed without an answer (refused address, DNS, connect error, timeout, cut connection); null on an answer. */
  error: string | null
  /** Nothing was dialled: the URL's name resolves to an address that is not allowed, or to none. */
  refused: boolean
  /** The answer's body, read up to maxResponseBytes (the rest dropped, connection closed), as UTF-8 text. */
  body: string
  durationMs: number
  /** The address the request was sent to (pinned after the check), when one was chosen. */
  address: string | null
}

export const WEBHOOK_USER_AGENT = 'mediactl-webhooks/1'

/**
 * POSTs one webhook and reports what came of it; never throws. The URL is checked again here, not only when the
 * webhook was created: a name may resolve elsewhere now (DNS rebinding), so it is resolved, refused if any address
 * is not public (unless allowed), and the request goes to the first address checked, never to a fresh lookup.
 */
export async function sendWebhook(
  request: WebhookRequest,
  options: { network: WebhookNetwork; allowPrivateNetworks: boolean },
): Promise<WebhookOutcome> {
  const started = performance.now()
  let address: string | null = null
  const outcome = (fields: Partial<WebhookOutcome>): WebhookOutcome => ({
    status: null,
    error: null,
    refused: false,
    body: '',
    ...fields,
    address,
    durationMs: Math.round(performance.now() - started),
  })
  // One deadline for everything, resolving included: a receiver (or its DNS) that trickles cannot hold a worker.
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), request.timeoutMs)
  try {
    // Whether http is accepted was decided when the webhook was created.
    const checked = await beforeDeadline(checkWebhookUrl(request.url, { ...options, allowHttp: true }), deadline.signal)
    if ('error' in checked) return outcome({ error: `the URL ${checked.error}`, refused: true })
    address = checked.addresses[0]!
    return outcome(await exchange(checked.url, address, request, options.network, deadline.signal))
  } catch (error) {
    if (deadline.signal.aborted) return outcome({ error: `timed out after ${request.timeoutMs / 1000} s` })
    return outcome({ error: error instanceof Error ? error.message : String(error) })
  } finally {
    clearTimeout(timer)
  }
}

/** `work`, or a rejection as soon as the deadline passes (the work itself is left to finish unheard). */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('deadline'))
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** The HTTP exchange with the pinned address: resolves on an answer (body capped), rejects on anything else. */
function exchange(
  url: URL,
  address: string,
  request: WebhookRequest,
  network: WebhookNetwork,
  signal: AbortSignal,
): Promise<Pick<WebhookOutcome, 'status' | 'body'>> {
  const tls = url.protocol === 'https:'
  const port = Number(url.port) || (tls ? 443 : 80)
  const payload = Buffer.from(request.body, 'utf8')
  const headers: Record<string, string | number> = {}
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value
  // The receiver sees the name it was configured with; the length is the one of what is sent.
  Object.assign(headers, { host: url.host, 'content-length': payload.length, 'user-agent': WEBHOOK_USER_AGENT })

  return new Promise((resolve, reject) => {
    // Settled once: by the answer, by the first failure, or by the deadline (which also drops the connection).
    let settled = false
    const settle = (result: Pick<WebhookOutcome, 'status' | 'body'> | Error) => {
      if (settled) return
      settled = true
      signal.removeEventListener('abort', onAbort)
      if (result instanceof Error) reject(result)
      else resolve(result)
    }
    const onAbort = () => {
      settle(new Error('deadline'))
      req.destroy()
    }
    const req = (tls ? https : http).request(
      {
        method: 'POST',
        // `host` is the pinned address too, so that even a connection made without createConnection went there.
        host: address,
        port,
        path: url.pathname + url.search,
        headers,
        // No `agent`: Node ignores createConnection when given one (even `agent: false` builds one, which then
        // resolves the name itself), and a connection is never shared with another delivery.
        createConnection: () => network.dial({ address, port, tls, servername: url.hostname }),
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        const finish = () => settle({ status: res.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8') })
        const cut = () => settle(new Error(`the connection was cut during the answer (after HTTP ${res.statusCode})`))
        res.on('data', (chunk: Buffer) => {
          if (settled) return
          const room = request.maxResponseBytes - size
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk)
          size += Math.min(chunk.length, room)
          if (size >= request.maxResponseBytes) {
            // Enough is read: the rest is not waited for, and the connection goes with it.
            finish()
            req.destroy()
          }
        })
        res.on('end', finish)
        res.on('error', cut)
        res.on('close', () => {
          if (!res.complete) cut()
        })
        if (request.maxResponseBytes <= 0) {
          finish()
          req.destroy()
        }
      },
    )
    req.on('error', settle)
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort()
    else req.end(payload)
  })
}
