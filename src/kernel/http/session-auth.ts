import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Principal } from '../ports/credentials.port.js'
import { SESSION_CSRF_HEADER, type SessionsPort } from '../ports/sessions.port.js'
import { HttpError } from './errors.js'

/** Longest session id the cookie may carry: anything longer is not one of ours. */
const MAX_SESSION_ID = 128

/** The value of cookie `name` in the request's Cookie header (the first one sent), or undefined. */
export function cookieValue(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie
  if (!header || !header.includes(name)) return undefined
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=')
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue
    const value = pair.slice(eq + 1).trim()
    return value.length > 0 && value.length <= MAX_SESSION_ID ? value : undefined
  }
  return undefined
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** Refused without a Digest challenge: the caller is a browser page, which would prompt for a login. */
export class SessionRefusal extends HttpError {
  constructor(status: 401 | 403, message: string) {
    super(status, message)
  }
}

/**
 * Authenticates requests made with a browser session's cookie. A cookie alone proves nothing (a browser sends it
 * with requests other sites make it send): the request must also carry the session's CSRF token in its header, which
 * only pages of this origin can read (and which another site's page cannot even send without a CORS grant we never
 * give), and come from a page of this site by the browser's own word (`Origin`, `Sec-Fetch-Site`).
 */
export class SessionAuth {
  constructor(
    private readonly sessions: SessionsPort,
    /** The site's origin (`https://media.example.org`), from the public URL; read per request (it may be rebased). */
    private readonly origin: () => string,
  ) {}

  /** The session id the request carries, or undefined. */
  sessionId(req: IncomingMessage): string | undefined {
    return cookieValue(req, this.sessions.cookieName)
  }

  /**
   * Whether a browser says the request comes from a page of this site: its `Origin`, or, where a browser sends none
   * (a same-origin GET), `Sec-Fetch-Site: same-origin`. Pages cannot set either header; every browser the console
   * supports sends one of them.
   */
  private fromThisSite(req: IncomingMessage): boolean {
    const origin = req.headers.origin
    if (origin !== undefined) return origin === this.origin()
    return req.headers['sec-fetch-site'] === 'same-origin'
  }

  async authenticate(req: IncomingMessage, id: string): Promise<Principal> {
    const csrf = req.headers[SESSION_CSRF_HEADER]
    if (typeof csrf !== 'string' || !this.fromThisSite(req)) {
      throw new SessionRefusal(
        403,
        'A console session is accepted only from the console: its requests carry the CSRF header ' +
          `(${SESSION_CSRF_HEADER}) from a page of this site (Origin). API clients authenticate with Digest.`,
      )
    }
    const grant = await this.sessions.find(id)
    if (!grant) throw new SessionRefusal(401, 'Your session has ended: sign in again.')
    if (!sameToken(csrf, grant.csrf)) {
      throw new SessionRefusal(403, 'The CSRF token does not match this session: reload the page.')
    }
    return grant.principal
  }
}
