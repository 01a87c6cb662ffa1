import type { HttpContext } from '../../src/kernel/index.js'
import { cookieValue } from '../../src/kernel/index.js'
import { type Language, isLanguage, preferredLanguage } from './browser/messages/index.js'

/** The session cookie's name: `__Host-` prefixed behind HTTPS, so that no other host or path may set it. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-mediactl_session' : 'mediactl_session'
}

/** Whether the public URL (`base_url`) is HTTPS: the cookies are then `Secure`. */
export const isSecureSite = (base: string): boolean => base.startsWith('https:')

/**
 * The `Set-Cookie` of a new session: sent on every request of this site (Path=/: the API is the console's server),
 * never readable by scripts (HttpOnly), never sent by another site's form posts or fetches (SameSite=Lax), kept
 * until the session's lifetime ends (the server ends it sooner when idle or signed out).
 */
export function sessionCookie(name: string, id: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${id}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

/** The `Set-Cookie` that removes the session cookie (sign-out). */
export function clearedSessionCookie(name: string, secure: boolean): string {
  return `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

/** The cookie of the language switch, readable by the console's pages only (Path=/console). */
export const LANGUAGE_COOKIE = 'mediactl_console_lang'

export function languageCookie(language: Language, secure: boolean): string {
  return `${LANGUAGE_COOKIE}=${language}; Path=/console; Max-Age=31536000; SameSite=Lax${secure ? '; Secure' : ''}`
}

/** The language of a console page: the switch's choice, else the browser's `Accept-Language`, else English. */
export function pageLanguage(c: HttpContext): Language {
  const chosen = cookieValue(c.req, LANGUAGE_COOKIE)
  return isLanguage(chosen) ? chosen : preferredLanguage(c.req.headers['accept-language'])
}
