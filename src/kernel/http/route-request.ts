import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Principal } from '../ports/credentials.port.js'
import type { KernelServices } from '../services.js'
import { verifyToken } from '../signed-token.js'
import { HttpContext } from './context.js'
import { credentialsHeader } from './digest.js'
import { HttpError, notFound } from './errors.js'
import type { Reply } from './reply.js'
import type { Route } from './router.js'
import type { TimestampDialect } from './xml.js'

/** How the pipeline authenticates (Digest and the credentials port) and challenges. */
export interface Authenticator {
  authenticate(req: IncomingMessage): Promise<Principal>
  /** A fresh Digest challenge, for the 401 of a refused token; absent where no client should be prompted. */
  challenge?(): string
}

/** What page routes produce (RouteOptions.produces): their errors are pages too, and never prompt for a login. */
export const HTML_PRODUCES = 'text/html'

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

/**
 * Decodes the path parameters. A control character (a NUL above all, which PostgreSQL cannot
 * even compare) never names anything, since no name or slug may hold one: 404 before any query.
 */
function decodeParams(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(raw)) {
    let decoded: string
    try {
      decoded = decodeURIComponent(value)
    } catch {
      throw new HttpError(400, `Malformed percent-encoding in the path parameter "${key}".`)
    }
    if (CONTROL.test(decoded)) throw notFound()
    out[key] = decoded
  }
  return out
}

/** The `token` query parameter (the last one sent), or undefined. */
function queryToken(search: string): string | undefined {
  if (!search.includes('token=')) return undefined
  return new URLSearchParams(search).getAll('token').at(-1)
}

/**
 * Checks the token of a media link (RouteOptions.tokenPurpose): its payload, or 401 (not a
 * token of ours: malformed or forged, with a Digest challenge so a client may authenticate
 * instead) or 403 (a real token, expired: the link has to be fetched again).
 */
function checkToken(
  secret: string,
  purpose: string,
  token: string,
  challenge: (() => string) | undefined,
): Record<string, unknown> {
  const check = verifyToken<Record<string, unknown>>(secret, purpose, token)
  if (check.ok) return check.payload
  if (check.problem === 'expired') {
    throw new HttpError(403, 'This link has expired: fetch a new one (with-token) or use Digest credentials.')
  }
  throw new HttpError(
    401,
    'The token of this link is not valid: fetch a new link (with-token) or use Digest credentials.',
    {},
    challenge ? { 'WWW-Authenticate': challenge() } : {},
  )
}

/**
 * Authenticates a request to `route` (undefined: no route matched, and the caller is
 * authenticated all the same, so that an unknown path reveals nothing): the user, or
 * undefined on a public route, an anonymous request to an `anonymous` route, or a token link.
 */
export async function authenticateFor(
  route: Route | undefined,
  req: IncomingMessage,
  search: string,
  services: KernelServices,
  auth: Authenticator,
): Promise<{ user?: Principal; token?: Record<string, unknown> }> {
  const options = route?.options ?? {}
  const purpose = options.tokenPurpose
  const sent = purpose ? queryToken(search) : undefined
  if (purpose && sent !== undefined) {
    // Pages get no Digest challenge: a browser would prompt for a login instead of showing the page.
    const challenge = options.produces === HTML_PRODUCES ? undefined : auth.challenge?.bind(auth)
    return { token: checkToken(services.secret, purpose, sent, challenge) }
  }
  if (options.public || (options.anonymous && credentialsHeader(req) === undefined)) return {}
  return { user: await auth.authenticate(req) }
}

/** A request matched to its route (http/app.ts runs it): authenticate, then respond. */
export class RouteRequest {
  private user: Principal | undefined
  private token: Record<string, unknown> | undefined
  /** The handler's context, once `respond` made it. */
  context: HttpContext | undefined

  constructor(
    readonly route: Route,
    private readonly params: Record<string, string>,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly search: string,
    readonly mounted: string,
    private readonly services: KernelServices,
    private readonly auth: Authenticator,
    /** Told the caller's username as soon as it is known (the access log). */
    private readonly onUser: (username: string) => void,
  ) {}

  /** Authenticates the caller as the route's options say: the user, or undefined (public, anonymous, token link). */
  async authenticate(): Promise<Principal | undefined> {
    const { user, token } = await authenticateFor(this.route, this.req, this.search, this.services, this.auth)
    this.user = user
    this.token = token
    if (user) this.onUser(user.username)
    return user
  }

  /** The user's platform may answer its (old) clients in another dialect than the installation's. */
  get dialect(): TimestampDialect {
    return this.user?.timestamps ?? this.services.config.api.timestamps
  }

  /** Runs the route's handler, once authenticated. */
  async respond(): Promise<Reply> {
    const params = decodeParams(this.params)
    this.context = new HttpContext(
      this.req,
      this.res,
      this.services,
      params,
      this.search,
      this.user,
      this.token,
      this.mounted,
    )
    return this.route.handler(this.context)
  }
}
