import type { Principal } from '../ports/credentials.port.js'
import type { Answer } from './answer.js'
import type { Reply } from './reply.js'
import type { Route } from './router.js'
import type { TimestampDialect, XmlNode } from './xml.js'

/** One request matched to its route, as a runner drives it: authenticate, then respond. */
export interface MatchedRequest {
  readonly route: Route
  readonly method: string
  /** The request target as sent (path and query). */
  readonly url: string
  /** The `Range` header, or ''. */
  readonly range: string
  /** The path prefix a host mapping put before the path ('' on the base URL's host). */
  readonly mounted: string
  /** Authenticates the caller as the route's options say: the user, or undefined (public, anonymous, token link). */
  authenticate(): Promise<Principal | undefined>
  /** The timestamp dialect answers are written in for the caller authenticated. */
  readonly dialect: TimestampDialect
  /** Runs the route's handler, once authenticated. */
  respond(): Promise<Reply>
  /** An XML reply of `respond` as the bytes it is written with (the handler's headers, the caller's dialect). */
  render(reply: Reply & { xml: XmlNode }): Answer
}

/** Drives a matched request to its reply. */
export type RouteRunner = (request: MatchedRequest) => Promise<Reply>

/** What every route runs unless a wrapper gives it a runner of its own. */
export const runRoute: RouteRunner = async (request) => {
  await request.authenticate()
  return request.respond()
}

/**
 * A runner of its own for a route, or undefined to run it as usual: how a concern around
 * whole routes (the kept answers of cacheable routes, cache/kept-answers.ts) joins the
 * pipeline without the pipeline knowing it.
 */
export type RouteWrapper = (route: Route) => RouteRunner | undefined
