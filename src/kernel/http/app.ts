import type { InFlight } from './in-flight.js'
import { randomUUID } from 'node:crypto'
import { isCancelledStatement, isOutage, outageOf } from './outage.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { Readable, pipeline } from 'node:stream'
import { NotFoundError, UniqueConstraintViolationException } from '@mikro-orm/core'
import type { KernelServices } from '../services.js'
import { requestLane } from '../cache/request-lane.js'
import { HttpError, internalError, notFound } from './errors.js'
import { XML_CONTENT_TYPE, accepts, acceptsXml } from './negotiate.js'
import { errorPage } from './page.js'
import { type Reply, reply } from './reply.js'
import { SessionRefusal } from './session-auth.js'
import { type Authenticator, HTML_PRODUCES, RouteRequest, authenticateFor } from './route-request.js'
import type { RouteTable } from './router.js'
import { type TimestampDialect, type XmlNode, renderXml, xml } from './xml.js'

/** The contract version every response announces. */
export const API_VERSION = '2.14.3'

export function errorDocument(error: HttpError): XmlNode {
  const fields = Object.entries(error.fields).map(([name, message]) => xml.str('field', message, { name }))
  return xml.el('error', undefined, [xml.num('status', error.status), xml.str('message', error.message), ...fields])
}

/** Maps anything thrown by a handler to the HttpError it answers as. */
function toHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error
  if (error instanceof NotFoundError) return notFound()
  if (error instanceof UniqueConstraintViolationException) {
    return new HttpError(412, 'A value that must be unique is already used; retry with another one.')
  }
  if (isOutage(error)) return OUTAGE()
  if (isCancelledStatement(error)) return CANCELLED()
  return undefined
}

/** What a request answers while a dependency (database, Redis) cannot be reached: try again soon. */
const OUTAGE = (): HttpError =>
  new HttpError(
    503,
    'A service this server needs is unreachable for now; try again in a few seconds.',
    {},
    {
      'Retry-After': '5',
    },
  )

/** What a request answers when the database cancelled its statement (`database.statement_timeout`): try again. */
const CANCELLED = (): HttpError =>
  new HttpError(503, 'The database took too long to answer; try again in a few seconds.', {}, { 'Retry-After': '5' })

/** An answer as written: status, headers and body. */
interface Answer {
  status: number
  headers: Readonly<Record<string, string | number>>
  body: Buffer
}

/** An XML reply as the status, headers and bytes it is written with. */
function xmlAnswer(reply: Reply & { xml: XmlNode }, extra: Record<string, string>, dialect: TimestampDialect): Answer {
  const body = Buffer.from(renderXml(reply.xml, dialect))
  const headers: Record<string, string | number> = { ...extra, ...reply.headers }
  headers['Content-Type'] ??= XML_CONTENT_TYPE
  headers['Content-Length'] = body.length
  return { status: reply.status, headers, body }
}

function writeAnswer(res: ServerResponse, answer: Answer, closing: boolean): void {
  if (closing) res.shouldKeepAlive = false
  res.writeHead(answer.status, answer.headers).end(answer.body)
}

function send(
  res: ServerResponse,
  reply: Reply,
  extra: Record<string, string>,
  closing: boolean,
  dialect: TimestampDialect,
): void {
  if (reply.handled) return
  if (reply.xml) return writeAnswer(res, xmlAnswer({ ...reply, xml: reply.xml }, extra, dialect), closing)
  if (closing) res.shouldKeepAlive = false
  const headers: Record<string, string | number> = { ...extra, ...reply.headers }
  if (reply.body instanceof Readable) {
    if (reply.type) headers['Content-Type'] = reply.type
    res.writeHead(reply.status, headers)
    // pipeline, not pipe: a client gone mid-answer (a player seeking away) destroys the
    // source too, so its file descriptor is released at once.
    pipeline(reply.body, res, () => undefined)
  } else if (reply.body !== undefined) {
    if (reply.type) headers['Content-Type'] = reply.type
    headers['Content-Length'] = Buffer.byteLength(reply.body)
    res.writeHead(reply.status, headers).end(reply.body)
  } else {
    res.writeHead(reply.status, headers).end()
  }
}

/**
 * The request target as logged: query parameters named like a token (`token`, `upload_token`,
 * ...) carry credentials (upload links, signed media URLs), so their values are masked.
 */
export function loggedTarget(url: string | undefined): string | undefined {
  if (!url || !/token/i.test(url)) return url
  return url.replace(/([?&][^=&#]*token[^=&#]*=)[^&#]*/gi, '$1[redacted]')
}

function splitTarget(url: string): { path: string; search: string } {
  const q = url.indexOf('?')
  return q === -1 ? { path: url, search: '' } : { path: url.slice(0, q), search: url.slice(q + 1) }
}

/**
 * The id of a request: the proxy's `X-Request-Id` when it is a plain token (so one id
 * follows the request through the proxy's log and ours), else a fresh one.
 */
function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id']
  return typeof sent === 'string' && /^[\w.-]{1,64}$/.test(sent) ? sent : randomUUID()
}

export interface HttpAppOptions {
  services: KernelServices
  routes: RouteTable
  /** Counts the handlers still running (shutdown waits for them). */
  inFlight?: InFlight
  /** Called once per request, when its connection is done with it (metrics). */
  observe?(request: RequestObservation): void
  /** Authenticates a request (Digest + the credentials port), and makes the challenges of 401 answers. */
  auth: Authenticator
  /** Called as each request starts: the caches learn the changes their feed learns only by asking (SQLite). */
  catchUp?(): void
  /** True once shutdown has begun: answers then close their connection instead of keeping it alive. */
  isClosing?(): boolean
  /**
   * The path prefix under which requests to another host name than the public base URL's are
   * served (a media's own domain → `/portal/<media>`), or null to serve them as usual.
   */
  hostPrefix?(host: string): Promise<string | null>
}

/** Headers every answer keeps, errors included. */
const KEPT_HEADERS = new Set(['x-api-version', 'x-request-id'])

/** What one request carries through the pipeline, for its log line. */
interface RequestState {
  id: string
  user?: string
  /** The matched route's pattern (`/file/:file`), for metrics: never the raw path. */
  route?: string
}

/** One request as metrics count it. */
export interface RequestObservation {
  method: string
  /** The route pattern, or `unmatched`. */
  route: string
  status: number
  seconds: number
}

/** The host name of a request (lowercase, port removed), or '' without a Host header. */
function hostOf(req: IncomingMessage): string {
  const host = (req.headers.host ?? '').toLowerCase()
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '')
}

/**
 * The request pipeline: version header, content negotiation (406), route match,
 * authentication (401 before 404, so unknown paths reveal nothing), the handler, and the
 * XML error body for anything that goes wrong. One access log line per request.
 */
export function createRequestListener(options: HttpAppOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { services, routes } = options
  const log = services.log
  const prefix = services.links.pathPrefix
  const baseHost = new URL(`${services.links.base}/`).hostname.toLowerCase()
  /** The dependencies requests fail on because they are unreachable (logged when it starts and ends). */
  const outages = new Set<string>()

  /** The prefix a host mapping puts before the path, for hosts other than the base URL's. */
  async function hostPrefixOf(req: IncomingMessage): Promise<string> {
    if (!options.hostPrefix) return ''
    const host = hostOf(req)
    if (!host || host === baseHost) return ''
    return (await options.hostPrefix(host)) ?? ''
  }

  async function handle(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<void> {
    let produces: string | undefined
    let embeddable = false
    try {
      const { path: fullPath, search } = splitTarget(req.url ?? '/')
      const mounted = await hostPrefixOf(req)
      const path = mounted
        ? `${mounted}${fullPath === '/' ? '' : fullPath}`
        : prefix && fullPath.startsWith(prefix)
          ? fullPath.slice(prefix.length) || '/'
          : fullPath
      const match = routes.match(req.method ?? 'GET', path)
      state.route = match?.route.path
      produces = match?.route.options.produces
      embeddable = match?.route.options.embeddable ?? false
      if (!acceptsXml(req.headers.accept) && !(produces && accepts(req.headers.accept, produces))) {
        throw new HttpError(406, 'Only XML is available: send Accept: application/xml (or leave Accept out).')
      }
      if (!match) {
        // 401 before 404: an unknown path tells an unauthenticated caller nothing.
        const { user } = await authenticateFor(undefined, req, search, services, options.auth)
        state.user = user?.username
        throw notFound()
      }
      const request = new RouteRequest(
        match.route,
        match.params,
        req,
        res,
        search,
        mounted,
        services,
        options.auth,
        (username) => (state.user = username),
      )
      await request.authenticate()
      const result = await request.respond()
      send(res, result, request.context?.responseHeaders ?? {}, options.isClosing?.() ?? false, request.dialect)
    } catch (error) {
      const known = toHttpError(error)
      const dependency = known?.status === 503 && isOutage(error) ? outageOf(error) : undefined
      if (dependency !== undefined && !outages.has(dependency)) {
        // One line per change of state, not one per request.
        outages.add(dependency)
        log.error(
          { err: error, id: state.id, dependency },
          'a dependency is unreachable: requests needing it answer 503 until it is back',
        )
      } else if (known?.status === 503 && dependency === undefined && isCancelledStatement(error)) {
        // Not an outage, but one slow statement: each is worth a line (which request, which statement).
        log.warn(
          { err: error, id: state.id, method: req.method, path: loggedTarget(req.url) },
          'a database statement ran past database.statement_timeout and was cancelled: answered 503',
        )
      }
      if (!known)
        log.error({ err: error, id: state.id, method: req.method, path: loggedTarget(req.url) }, 'request failed')
      // The id in the body lets a client's report be matched with the log line above.
      const answer = known ?? internalError(state.id)
      if (res.headersSent) {
        res.destroy()
        return
      }
      for (const name of res.getHeaderNames()) if (!KEPT_HEADERS.has(name)) res.removeHeader(name)
      // Pages (player, recorder, portal) answer their errors as pages: a browser shows them.
      const page = produces === HTML_PRODUCES && accepts(req.headers.accept, HTML_PRODUCES)
      // A 401 to a request without credentials tells the client how to authenticate (RFC 9110),
      // unless a browser would prompt for a login. An authenticated caller's 401 (a failed
      // password check) gets none: a Digest client would only retry the same credentials.
      if (
        answer.status === 401 &&
        state.user === undefined &&
        produces !== HTML_PRODUCES &&
        !(known instanceof SessionRefusal) &&
        !answer.headers['WWW-Authenticate'] &&
        options.auth.challenge
      ) {
        answer.headers['WWW-Authenticate'] = options.auth.challenge()
      }
      send(
        res,
        page
          ? reply.page(answer.status, errorPage(answer.status, answer.message), { headers: answer.headers, embeddable })
          : { status: answer.status, xml: errorDocument(answer), headers: answer.headers },
        {},
        options.isClosing?.() ?? false,
        services.config.api.timestamps,
      )
    }
  }

  return (req, res) => {
    const started = performance.now()
    const state: RequestState = { id: requestIdOf(req) }
    options.catchUp?.()
    res.setHeader('X-Api-Version', API_VERSION)
    res.setHeader('X-Request-Id', state.id)
    if (options.isClosing?.()) res.shouldKeepAlive = false
    res.on('close', () => {
      const status = res.writableFinished ? res.statusCode : 499
      // An authenticated request that went well reached the database (and Redis where used).
      if (outages.size > 0 && state.user !== undefined && status < 500) {
        log.info({ dependencies: [...outages] }, 'dependencies answer again')
        outages.clear()
      }
      const ms = performance.now() - started
      options.observe?.({ method: req.method ?? 'GET', route: state.route ?? 'unmatched', status, seconds: ms / 1000 })
      log.info(
        {
          method: req.method,
          path: loggedTarget(req.url),
          status,
          ms: Math.round(ms * 10) / 10,
          user: state.user ?? null,
          id: state.id,
        },
        'request',
      )
    })
    // Last line of defence: even answering the error failed (a header a handler built from
    // input, a socket gone). That request is lost, not the process.
    // Each request reads through a lane of its own: one pool connection at a time (request-lane.ts).
    const handled = requestLane
      .run(() => handle(req, res, state))
      .catch((error: unknown) => {
        log.error({ err: error, id: state.id, method: req.method, path: loggedTarget(req.url) }, 'answer failed')
        res.destroy()
      })
    options.inFlight?.track(handled)
  }
}
