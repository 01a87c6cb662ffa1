import { type IncomingMessage, STATUS_CODES, type Server, type ServerResponse, createServer } from 'node:http'
import type { Duplex } from 'node:stream'
import type { Logger } from '../log.js'
import { API_VERSION, errorDocument } from './app.js'
import { HttpError } from './errors.js'
import { XML_CONTENT_TYPE } from './negotiate.js'
import { renderXml } from './xml.js'

/** The `http` settings the server itself enforces (see docs/security.md). */
export interface ServerLimits {
  max_header_size: number
  headers_timeout: number
  request_timeout: number
  idle_timeout: number
  keep_alive_timeout: number
}

/** What a broken request (one node:http could not even parse) answers, by node's error code. */
function clientErrorStatus(code: string | undefined): { status: number; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, message: 'The request headers are too large: send fewer or shorter headers.' }
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, message: 'The request took too long to arrive: send it again, faster.' }
  }
  return { status: 400, message: 'Malformed HTTP request.' }
}

/**
 * A node:http server around the pipeline, with the limits that keep one client from
 * starving the others: a bounded request head (431), a deadline for it (slowloris: 408),
 * an optional deadline for the whole request, an idle timeout and keep-alive for API clients.
 * Requests node:http cannot parse get the contract's error body, then the connection closes.
 */
export function createHttpServer(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  limits: ServerLimits,
  log?: Logger,
): Server {
  const ms = (seconds: number): number => Math.round(seconds * 1000)
  const requestTimeout = ms(limits.request_timeout)
  // node:http refuses a head deadline beyond the whole request's.
  const headersTimeout =
    requestTimeout > 0 ? Math.min(ms(limits.headers_timeout), requestTimeout) : ms(limits.headers_timeout)
  const server = createServer(
    {
      maxHeaderSize: limits.max_header_size,
      headersTimeout,
      requestTimeout,
      keepAliveTimeout: ms(limits.keep_alive_timeout),
      // How often the deadlines above are checked: often enough that they hold to about a quarter.
      connectionsCheckingInterval: Math.max(100, Math.min(5000, Math.round(headersTimeout / 4))),
    },
    listener,
  )
  server.timeout = ms(limits.idle_timeout)
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    // A connection that never sent a byte (a browser's preconnection, a probe) made no request:
    // it is closed without an answer, as the idle timeout closes it, whichever deadline comes first.
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && (socket as Duplex & { bytesRead?: number }).bytesRead === 0) {
      socket.destroy()
      return
    }
    // Garbage after a whole request still being answered: that answer is finished first, then
    // the connection closes (the garbage gets none: it was no request). A request whose own
    // body broke is cut at once, so that its handler sees the body fail and cleans up.
    const pending = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage
    if (pending && !pending.writableFinished && pending.req.complete) {
      pending.once('close', () => socket.destroy())
      return
    }
    if (pending?.headersSent) {
      socket.destroy()
      return
    }
    const { status, message } = clientErrorStatus(error.code)
    const remote = (socket as Duplex & { remoteAddress?: string }).remoteAddress
    log?.info({ status, code: error.code, ip: remote }, 'client error')
    const body = renderXml(errorDocument(new HttpError(status, message)))
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: ${XML_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Api-Version: ${API_VERSION}\r\n\r\n${body}`,
    )
  })
  return server
}
