import type { Principal } from './credentials.port.js'

/** What a live browser session stands for: its user, and the token its requests must echo. */
export interface SessionGrant {
  principal: Principal
  /** The session's CSRF token: a request made with the session's cookie must send it in `SESSION_CSRF_HEADER`. */
  csrf: string
}

/** The header in which a browser page sends its session's CSRF token (the console's requests to the API). */
export const SESSION_CSRF_HEADER = 'x-mediactl-csrf'

/**
 * Browser sessions (the console's sign-in), as the kernel's authenticator sees them. Optional: without a provider
 * the API knows only Digest, and a session cookie is ignored. The provider decides whether a session is alive; the
 * kernel alone decides whether a request may use it (its CSRF header and a same-origin `Origin`), so that safety
 * never depends on the plugin.
 */
export interface SessionsPort {
  /** The cookie that carries the session id (`__Host-` prefixed when the public URL is HTTPS). */
  readonly cookieName: string
  /**
   * The grant of the session `id` as sent in the cookie; null when no such session is alive (unknown, ended,
   * idle or older than allowed) or its user may no longer authenticate (inactive). Called once per request that
   * carries the cookie and no Digest credentials.
   */
  find(id: string): Promise<SessionGrant | null>
}
