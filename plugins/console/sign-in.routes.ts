import { type HttpContext, type Reply, type Router, cookieValue, reply, transaction } from '../../src/kernel/index.js'
import { hashPassword, verifyPassword } from '../../src/shared/password.js'
import { UserEntity } from '../identity/index.js'
import { clearedSessionCookie, pageLanguage, sessionCookie } from './console-cookies.js'
import type { ConsoleDeps } from './console.deps.js'
import { MAX_PASSWORD, MIN_PASSWORD, linkPage, linkRefusedPage, signInPage } from './console.pages.js'
import { message } from './browser/messages/index.js'
import { endSession, endUserSessions, liveSession, openSession } from './sessions.service.js'
import { consumeSignInLink, peekSignInLink } from './sign-in-links.service.js'
import { clearAccountFailures, recordSignInFailure, signInWait } from './sign-in-throttle.js'

const PAGE = { public: true, produces: 'text/html' } as const
/** The console's pages are never framed, not even by this site (clickjacking of the sign-in and sign-out forms). */
export const CONSOLE_PAGE_OPTIONS = { unframeable: true } as const

// A password check costs the same time whether the user exists or not.
const decoy = hashPassword('no user has this password')

const base = (c: HttpContext): string => c.links.base

/** 303 to a console address (`/console...`), setting `cookie` when given. */
export function seeOther(c: HttpContext, path: string, cookie?: string): Reply {
  const headers: Record<string, string> = { Location: `${base(c)}${path}`, 'Cache-Control': 'no-store' }
  if (cookie) headers['Set-Cookie'] = cookie
  return { status: 303, body: '', type: 'text/plain; charset=utf-8', headers }
}

/**
 * A form posted to the console must come from the console's own pages: a browser names the page's origin in
 * `Origin` on every POST, which another site cannot forge (sign-in CSRF would sign a victim into an attacker's
 * account). A client without `Origin` (curl, an old browser) is no browser page of another site.
 */
function fromThisSite(c: HttpContext): boolean {
  const origin = c.req.headers.origin
  return origin === undefined || origin === new URL(`${base(c)}/`).origin
}

function crossSite(c: HttpContext): Reply {
  return reply.page(
    403,
    signInPage({ language: pageLanguage(c), base: base(c), problem: message(pageLanguage(c), 'error.page') }),
    CONSOLE_PAGE_OPTIONS,
  )
}

async function showSignIn(c: HttpContext, deps: ConsoleDeps): Promise<Reply> {
  const id = cookieValue(c.req, deps.cookieName)
  if (id && (await liveSession(c.em, id, deps.config))) return seeOther(c, '/console')
  const language = pageLanguage(c)
  const notice = c.query().signed_out !== undefined ? message(language, 'sign_in.signed_out') : undefined
  return reply.page(200, signInPage({ language, base: base(c), notice }), CONSOLE_PAGE_OPTIONS)
}

async function signIn(c: HttpContext, deps: ConsoleDeps): Promise<Reply> {
  if (!fromThisSite(c)) return crossSite(c)
  const language = pageLanguage(c)
  const form = await c.form()
  const username = typeof form.username === 'string' ? form.username.slice(0, 128) : ''
  const password = typeof form.password === 'string' ? form.password : ''
  const again = (status: number, problem: string, headers: Record<string, string> = {}) =>
    reply.page(status, signInPage({ language, base: base(c), username, problem }), { ...CONSOLE_PAGE_OPTIONS, headers })
  if (!username || !password) return again(400, message(language, 'sign_in.missing'))
  const address = c.req.socket.remoteAddress ?? 'unknown'
  const refused = (reason: string) =>
    // One warn line per refused attempt, as Digest's: fail2ban's input. Never the password.
    c.log.warn({ event: 'sign_in_failed', ip: address, username, reason }, 'console sign-in refused')
  const wait = await signInWait(c.em, { username, address }, deps.config)
  if (wait > 0) {
    refused('too many failed sign-ins')
    return again(429, message(language, 'sign_in.throttled', { seconds: wait }), { 'Retry-After': String(wait) })
  }
  const user = await c.em.findOne(UserEntity, { username })
  const right = await verifyPassword(password.slice(0, MAX_PASSWORD), user?.passwordHash ?? (await decoy))
  if (!user || !right || !user.isActive) {
    await recordSignInFailure(c.em, { username, address })
    refused(!user ? 'unknown user' : !right ? 'wrong password' : 'inactive user')
    return again(401, message(language, 'sign_in.wrong'))
  }
  await clearAccountFailures(c.em, username)
  const session = await openSession(c.em, user.id, deps.config)
  c.log.info({ event: 'signed_in', ip: address, username }, 'console sign-in')
  return seeOther(c, '/console', sessionCookie(deps.cookieName, session.id, deps.config.session_lifetime, deps.secure))
}

/** Reads the CSRF token a sign-out form carries: sign-out is an action, which another site must not trigger. */
async function sessionOfForm(c: HttpContext, deps: ConsoleDeps) {
  if (!fromThisSite(c)) return undefined
  const id = cookieValue(c.req, deps.cookieName)
  const session = id ? await liveSession(c.em, id, deps.config) : undefined
  const form = await c.form()
  return session && form.csrf === session.csrf ? { id: id!, session } : undefined
}

async function signOut(c: HttpContext, deps: ConsoleDeps, everywhere: boolean): Promise<Reply> {
  const found = await sessionOfForm(c, deps)
  if (!found) return seeOther(c, '/console/sign-in')
  if (everywhere) await endUserSessions(c.em, [found.session.userId])
  else await endSession(c.em, found.id)
  c.log.info({ event: 'signed_out', username: found.session.username, everywhere }, 'console sign-out')
  return seeOther(c, '/console/sign-in?signed_out', clearedSessionCookie(deps.cookieName, deps.secure))
}

async function showLink(c: HttpContext): Promise<Reply> {
  const language = pageLanguage(c)
  const token = c.param('token')
  const view = await peekSignInLink(c.em, token)
  if (!view.ok) {
    return reply.page(
      view.problem === 'unknown' ? 404 : 410,
      linkRefusedPage(language, base(c), view.problem),
      CONSOLE_PAGE_OPTIONS,
    )
  }
  return reply.page(200, linkPage({ language, base: base(c), token, username: view.username }), CONSOLE_PAGE_OPTIONS)
}

async function useLink(c: HttpContext, deps: ConsoleDeps): Promise<Reply> {
  if (!fromThisSite(c)) return crossSite(c)
  const language = pageLanguage(c)
  const token = c.param('token')
  const form = await c.form()
  const password = typeof form.password === 'string' ? form.password : ''
  const confirm = typeof form.confirm === 'string' ? form.confirm : ''
  const problem =
    [...password].length < MIN_PASSWORD
      ? message(language, 'link.too_short', { min: MIN_PASSWORD })
      : [...password].length > MAX_PASSWORD
        ? message(language, 'link.too_long', { max: MAX_PASSWORD })
        : password !== confirm
          ? message(language, 'link.mismatch')
          : undefined
  if (problem) {
    const view = await peekSignInLink(c.em, token)
    if (!view.ok)
      return reply.page(
        view.problem === 'unknown' ? 404 : 410,
        linkRefusedPage(language, base(c), view.problem),
        CONSOLE_PAGE_OPTIONS,
      )
    return reply.page(
      412,
      linkPage({ language, base: base(c), token, username: view.username, problem }),
      CONSOLE_PAGE_OPTIONS,
    )
  }
  const passwordHash = await hashPassword(password)
  const outcome = await transaction(c.em, async (em) => {
    const view = await consumeSignInLink(em, token)
    if (!view.ok) return view
    await em.nativeUpdate(UserEntity, { id: view.userId }, { passwordHash })
    // A new password ends the sessions opened with the old one.
    await endUserSessions(em, [view.userId])
    return { ...view, session: await openSession(em, view.userId, deps.config) }
  })
  if (!outcome.ok) {
    return reply.page(
      outcome.problem === 'unknown' ? 404 : 410,
      linkRefusedPage(language, base(c), outcome.problem),
      CONSOLE_PAGE_OPTIONS,
    )
  }
  c.log.info({ event: 'password_chosen', username: outcome.username }, 'console sign-in link used')
  return seeOther(
    c,
    '/console',
    sessionCookie(deps.cookieName, outcome.session.id, deps.config.session_lifetime, deps.secure),
  )
}

/** Sign-in, sign-out, and the one-time links where a user chooses a password. */
export function signInRoutes(r: Router, deps: ConsoleDeps): void {
  r.get('/console/sign-in', (c) => showSignIn(c, deps), { ...PAGE, permission: 'public: the sign-in form' })
  r.post('/console/sign-in', (c) => signIn(c, deps), { ...PAGE, permission: 'public: checks a username and password' })
  r.post('/console/sign-out', (c) => signOut(c, deps, false), {
    ...PAGE,
    permission: "public: ends the session of the cookie, with the session's CSRF token",
  })
  r.post('/console/sign-out-everywhere', (c) => signOut(c, deps, true), {
    ...PAGE,
    permission: "public: ends every session of the cookie's user, with the session's CSRF token",
  })
  r.get('/console/link/:token', (c) => showLink(c), {
    ...PAGE,
    permission: 'public: the token in the address is the credential (read, not spent)',
  })
  r.post('/console/link/:token', (c) => useLink(c, deps), {
    ...PAGE,
    permission: 'public: the token in the address is the credential (spent)',
  })
}
