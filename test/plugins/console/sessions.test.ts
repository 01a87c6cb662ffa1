import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import { recordingLogger } from '../../helpers/log.js'
import { waitFor } from '../../helpers/wait.js'
import { parseXml, text } from '../../helpers/xml.js'
import {
  type BrowserSession,
  cookieOf,
  csrfOf,
  linkFor,
  send,
  sessionThroughLink,
  setCookies,
} from './console.helpers.js'

const PASSWORD = 'correct horse battery staple'

describe('console sessions: sign-in links, sign-in, the API with a session, sign-out', () => {
  let app: TestApp
  const log = recordingLogger()

  beforeAll(async () => {
    app = await startApp({ logger: log.logger })
    await app.createUser({ username: 'pat' })
  })
  afterAll(() => app?.close())

  /** An API request as the console's script makes it: cookie, CSRF header, this site's Origin. */
  const api = (session: BrowserSession, path: string, headers: Record<string, string> = {}) =>
    send(`${app.url}${path}`, {
      headers: {
        cookie: session.cookie,
        'x-mediactl-csrf': session.csrf,
        origin: app.url,
        accept: 'application/xml',
        ...headers,
      },
    })

  it('a sign-in link shows the password form once, refuses short or differing passwords, then signs in', async () => {
    const link = await linkFor(app, 'pat')
    expect(link).toMatch(new RegExp(`^${app.url}/console/link/[A-Za-z0-9]{43}$`))
    const page = await send(link)
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(page.headers['x-frame-options']).toBe('DENY')
    expect(page.body).toContain('Welcome, pat.')

    const short = await send(link, { form: { password: 'short', confirm: 'short' } })
    expect(short.status).toBe(412)
    expect(short.body).toContain('at least 12 characters')
    const differ = await send(link, { form: { password: PASSWORD, confirm: `${PASSWORD}!` } })
    expect(differ.status).toBe(412)
    expect(differ.body).toContain('The two passwords differ.')
    expect(setCookies(differ)).toEqual([])

    const used = await send(link, { form: { password: PASSWORD, confirm: PASSWORD } })
    expect(used.status).toBe(303)
    expect(used.headers.location).toBe(`${app.url}/console`)
    const [cookie] = setCookies(used)
    expect(cookie).toMatch(/^mediactl_session=[A-Za-z0-9]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax$/)

    const again = await send(link, { form: { password: PASSWORD, confirm: PASSWORD } })
    expect(again.status).toBe(410)
    expect(again.body).toContain('was used already')
    expect((await send(link)).status).toBe(410)
    expect((await send(`${app.url}/console/link/${'x'.repeat(43)}`)).status).toBe(404)
    expect((await send(`${app.url}/console/link/%3Cscript%3E`)).status).toBe(404)
  })

  it('signs in with the password: a new session id each time, and the console page carries its CSRF token', async () => {
    const before = await send(`${app.url}/console`)
    expect(before.status).toBe(303)
    expect(before.headers.location).toBe(`${app.url}/console/sign-in`)
    const form = await send(`${app.url}/console/sign-in`)
    expect(form.status).toBe(200)
    expect(form.body).toContain('<form method="post"')

    const first = await send(`${app.url}/console/sign-in`, {
      form: { username: 'pat', password: PASSWORD },
      headers: { origin: app.url },
    })
    expect(first.status).toBe(303)
    const second = await send(`${app.url}/console/sign-in`, {
      form: { username: 'pat', password: PASSWORD },
      // A browser that held a session (or was given one by an attacker) gets a new id all the same.
      headers: { origin: app.url, cookie: `mediactl_session=${cookieOf(first, 'mediactl_session')}` },
    })
    expect(second.status).toBe(303)
    expect(cookieOf(second, 'mediactl_session')).not.toBe(cookieOf(first, 'mediactl_session'))

    const page = await send(`${app.url}/console`, {
      headers: { cookie: `mediactl_session=${cookieOf(second, 'mediactl_session')}` },
    })
    expect(page.status).toBe(200)
    expect(page.body).toContain('Signed in as pat')
    expect(csrfOf(page.body)).toMatch(/^[A-Za-z0-9]{43}$/)
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    expect(page.body).not.toMatch(/<script>/)
  })

  it('refuses wrong passwords, unknown users and missing fields alike, and logs each refusal without the password', async () => {
    const wrong = await send(`${app.url}/console/sign-in`, { form: { username: 'pat', password: 'not the password' } })
    expect(wrong.status).toBe(401)
    expect(wrong.headers['www-authenticate']).toBeUndefined()
    expect(wrong.body).toContain('Wrong username or password.')
    const unknown = await send(`${app.url}/console/sign-in`, {
      form: { username: 'nobody', password: 'whatever it is' },
    })
    expect(unknown.status).toBe(401)
    expect(unknown.body).toContain('Wrong username or password.')
    expect((await send(`${app.url}/console/sign-in`, { form: { username: 'pat' } })).status).toBe(400)
    const lines = log.lines.filter((line) => line.event === 'sign_in_failed')
    expect(lines.map((line) => [line.username, line.reason])).toEqual(
      expect.arrayContaining([
        ['pat', 'wrong password'],
        ['nobody', 'unknown user'],
      ]),
    )
    expect(lines.every((line) => typeof line.ip === 'string')).toBe(true)
    expect(JSON.stringify(log.lines)).not.toContain('not the password')
  })

  it('the API takes the session only with its CSRF header and from this site, and sets no cookie', async () => {
    const session = await sessionThroughLink(app, 'pat', PASSWORD)
    const ok = await api(session, '/user/pat')
    expect(ok.status).toBe(200)
    expect(text(parseXml(ok.body).user.username)).toBe('pat')
    expect(setCookies(ok)).toEqual([])
    // A same-origin GET carries no Origin in browsers: Sec-Fetch-Site says where it comes from.
    const sameSite = await send(`${app.url}/user/pat`, {
      headers: { cookie: session.cookie, 'x-mediactl-csrf': session.csrf, 'sec-fetch-site': 'same-origin' },
    })
    expect(sameSite.status).toBe(200)

    const noHeader = await send(`${app.url}/user/pat`, { headers: { cookie: session.cookie, origin: app.url } })
    expect(noHeader.status).toBe(403)
    expect(noHeader.headers['www-authenticate']).toBeUndefined()
    expect(noHeader.body).toContain('CSRF')
    expect((await api(session, '/user/pat', { 'x-mediactl-csrf': 'A'.repeat(43) })).status).toBe(403)
    // Another site's fetch with the cookie, header and all (a CORS preflight would stop it first in a browser).
    expect((await api(session, '/user/pat', { origin: 'http://127.0.0.2:9' })).status).toBe(403)
    const crossSite = await send(`${app.url}/user/pat`, {
      headers: { cookie: session.cookie, 'x-mediactl-csrf': session.csrf, 'sec-fetch-site': 'cross-site' },
    })
    expect(crossSite.status).toBe(403)
    // A cross-origin form post with the cookie: no CSRF header, another Origin.
    const post = await send(`${app.url}/platforms`, {
      form: { name: 'Evil', max_users: '1', max_space: '1' },
      headers: { cookie: session.cookie, origin: 'http://127.0.0.2:9' },
    })
    expect(post.status).toBe(403)
    // Digest still wins when both are sent: API clients never see the cookie's rules.
    expect((await app.client.get('/user/pat', { headers: { cookie: session.cookie } })).status).toBe(200)
  })

  it('answers hostile cookies and tokens with 401 or 403, never a 5xx', async () => {
    const values = [
      '',
      'x',
      'A'.repeat(43),
      'A'.repeat(129),
      '%00%0d%0a',
      '"quoted"',
      '${jndi:x}',
      '\u00e9'.repeat(43),
      ';;;;',
    ]
    for (const value of values) {
      for (const csrf of [undefined, value, 'A'.repeat(43)]) {
        const headers: Record<string, string> = {
          cookie: `mediactl_session=${encodeURIComponent(value)}; a=b; mediactl_session=x`,
          origin: app.url,
        }
        if (csrf !== undefined) headers['x-mediactl-csrf'] = encodeURIComponent(csrf)
        const answer = await send(`${app.url}/user/pat`, { headers })
        expect([401, 403], `${value} / ${csrf}`).toContain(answer.status)
      }
    }
    const huge = await send(`${app.url}/user/pat`, {
      headers: { cookie: `mediactl_session=${'A'.repeat(6000)}`, origin: app.url, 'x-mediactl-csrf': 'x' },
    })
    expect(huge.status).toBe(401)
    const pages = ['/console', '/console/library', '/console/sign-in', `/console/link/${'A'.repeat(43)}`]
    for (const path of pages) {
      const answer = await send(`${app.url}${path}`, {
        headers: { cookie: 'mediactl_session=%ff%fe; mediactl_console_lang=<script>' },
      })
      expect(answer.status, path).toBeLessThan(500)
    }
    const back = await send(`${app.url}/console/language?to=fr&back=https://evil.example/`)
    expect(back.status).toBe(303)
    expect(back.headers.location).toBe(`${app.url}/console`)
    const protocolRelative = await send(`${app.url}/console/language?to=fr&back=//evil.example/console`)
    expect(protocolRelative.headers.location).toBe(`${app.url}/console`)
  })

  it('a session sees what its user may: another platform is 404, an administrator action 403', async () => {
    const admin = app.client
    expect((await admin.post('/platforms', { form: { name: 'Other', max_users: '5', max_space: '0' } })).status).toBe(
      201,
    )
    const session = await sessionThroughLink(app, 'pat', PASSWORD)
    expect((await api(session, '/platform/other')).status).toBe(404)
    expect((await api(session, '/platforms')).status).toBe(403)
  })

  it('sign-out ends the session on the server; sign-out everywhere ends them all; a form of another site ends none', async () => {
    const one = await sessionThroughLink(app, 'pat', PASSWORD)
    const signIn = await send(`${app.url}/console/sign-in`, {
      form: { username: 'pat', password: PASSWORD },
      headers: { origin: app.url },
    })
    const twoCookie = `mediactl_session=${cookieOf(signIn, 'mediactl_session')}`
    const two = {
      cookie: twoCookie,
      csrf: csrfOf((await send(`${app.url}/console`, { headers: { cookie: twoCookie } })).body),
    }

    const forged = await send(`${app.url}/console/sign-out`, {
      form: { csrf: one.csrf },
      headers: { cookie: one.cookie, origin: 'http://127.0.0.2:9' },
    })
    expect(forged.status).toBe(303)
    expect((await api(one, '/user/pat')).status).toBe(200)
    const noToken = await send(`${app.url}/console/sign-out`, {
      form: {},
      headers: { cookie: one.cookie, origin: app.url },
    })
    expect(noToken.status).toBe(303)
    expect((await api(one, '/user/pat')).status).toBe(200)

    const out = await send(`${app.url}/console/sign-out`, {
      form: { csrf: one.csrf },
      headers: { cookie: one.cookie, origin: app.url },
    })
    expect(out.status).toBe(303)
    expect(out.headers.location).toBe(`${app.url}/console/sign-in?signed_out`)
    expect(setCookies(out)[0]).toMatch(/^mediactl_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/)
    // The old cookie, kept by someone who copied it, is worth nothing now.
    const ended = await api(one, '/user/pat')
    expect(ended.status).toBe(401)
    expect(ended.headers['www-authenticate']).toBeUndefined()
    expect((await send(`${app.url}/console`, { headers: { cookie: one.cookie } })).status).toBe(303)

    const three = await sessionThroughLink(app, 'pat', PASSWORD)
    // A new password (the link) ended session two.
    expect((await api(two, '/user/pat')).status).toBe(401)
    const four = { ...three }
    const everywhere = await send(`${app.url}/console/sign-out-everywhere`, {
      form: { csrf: three.csrf },
      headers: { cookie: three.cookie, origin: app.url },
    })
    expect(everywhere.status).toBe(303)
    expect((await api(four, '/user/pat')).status).toBe(401)
  })

  it('ends the sessions of a user made inactive or given a new password, and refuses a cross-site sign-in form', async () => {
    const session = await sessionThroughLink(app, 'pat', PASSWORD)
    expect((await app.client.put('/user/pat', { form: { is_active: '0' } })).status).toBe(200)
    expect((await api(session, '/user/pat')).status).toBe(401)
    expect((await app.client.put('/user/pat', { form: { is_active: '1' } })).status).toBe(200)

    // A new password through the API (here by an administrator) ends the sessions opened with the old one.
    const before = await sessionThroughLink(app, 'pat', PASSWORD)
    expect((await api(before, '/user/pat')).status).toBe(200)
    expect((await app.client.put('/user/pat', { form: { first_name: 'Pat' } })).status).toBe(200)
    expect((await api(before, '/user/pat')).status).toBe(200)
    expect((await app.client.put('/user/pat', { form: { password: 'another long password' } })).status).toBe(200)
    expect((await api(before, '/user/pat')).status).toBe(401)
    const signedIn = await send(`${app.url}/console/sign-in`, {
      form: { username: 'pat', password: 'another long password' },
      headers: { origin: app.url },
    })
    expect(signedIn.status).toBe(303)
    const crossSite = await send(`${app.url}/console/sign-in`, {
      form: { username: 'pat', password: PASSWORD },
      headers: { origin: 'http://127.0.0.2:9' },
    })
    expect(crossSite.status).toBe(403)
    expect(setCookies(crossSite)).toEqual([])
  })
})

describe('console sign-in throttling', () => {
  let app: TestApp

  /**
   * Seconds over which failures count here: long enough for the 100 attempts (under 2 s on an idle machine, up to
   * several times that beside CI's other legs), short enough to wait for.
   */
  const WINDOW = 20

  beforeAll(async () => {
    app = await startApp({ config: { console: { sign_in_window: WINDOW, sign_in_failures_per_account: 10 } } })
    await app.createUser({ username: 'sam' })
    await sessionThroughLink(app, 'sam', PASSWORD)
  })
  afterAll(() => app?.close())

  it('answers 429 with Retry-After after the failures of one account, then takes the right password after the window', async () => {
    const attempts: { status: number; at: number; retryAfter: number }[] = []
    const started = Date.now()
    for (let i = 0; i < 100; i++) {
      const answer = await send(`${app.url}/console/sign-in`, { form: { username: 'sam', password: `wrong ${i}` } })
      attempts.push({
        status: answer.status,
        at: Date.now() - started,
        retryAfter: Number(answer.headers['retry-after']),
      })
    }
    expect(attempts.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(401))
    // Within the window (a second to spare), every further attempt is refused unchecked.
    const within = attempts.slice(10).filter((a) => a.at < (WINDOW - 1) * 1000)
    expect(within.length, 'attempts made within the window: too slow a machine proves nothing here').toBeGreaterThan(50)
    for (const attempt of within) {
      expect(attempt.status).toBe(429)
      expect(attempt.retryAfter).toBeGreaterThanOrEqual(1)
      expect(attempt.retryAfter).toBeLessThanOrEqual(WINDOW)
    }
    const right = () => send(`${app.url}/console/sign-in`, { form: { username: 'sam', password: PASSWORD } })
    // Still within the window, the right password waits too: it is not even checked.
    const early = await right()
    if (Date.now() - started < (WINDOW - 1) * 1000) expect(early.status).toBe(429)
    await waitFor(async () => (await right()).status === 303, {
      timeout: (WINDOW + 20) * 1000,
      interval: 250,
      message: 'the right password after the window',
    })
  }, 120_000)

  it('counts failures per address too, whatever the usernames tried', async () => {
    const other = await startApp({ config: { console: { sign_in_window: 60, sign_in_failures_per_address: 5 } } })
    try {
      const statuses: number[] = []
      for (let i = 0; i < 8; i++) {
        statuses.push(
          (await send(`${other.url}/console/sign-in`, { form: { username: `user${i}`, password: 'wrong password' } }))
            .status,
        )
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429])
    } finally {
      await other.close()
    }
  })
})

describe('console cookies behind an HTTPS public URL', () => {
  let app: TestApp
  const site = 'https://media.example.org'

  beforeAll(async () => {
    app = await startApp({ config: { base_url: site } })
  })
  afterAll(() => app?.close())

  it('names the cookie __Host-, marks it Secure, and takes requests from that origin only', async () => {
    const link = (await linkFor(app, 'admin')).replace(site, app.url)
    const used = await send(link, { form: { password: PASSWORD, confirm: PASSWORD }, headers: { origin: site } })
    expect(used.status).toBe(303)
    const [cookie] = setCookies(used)
    expect(cookie).toMatch(
      /^__Host-mediactl_session=[A-Za-z0-9]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$/,
    )
    const sessionCookie = `__Host-mediactl_session=${cookieOf(used, '__Host-mediactl_session')}`
    const page = await send(`${app.url}/console`, { headers: { cookie: sessionCookie } })
    const csrf = csrfOf(page.body)
    const headers = { cookie: sessionCookie, 'x-mediactl-csrf': csrf }
    expect((await send(`${app.url}/user/admin`, { headers: { ...headers, origin: site } })).status).toBe(200)
    expect((await send(`${app.url}/user/admin`, { headers: { ...headers, origin: app.url } })).status).toBe(403)
    // The http cookie name means nothing here.
    const plain = `mediactl_session=${cookieOf(used, '__Host-mediactl_session')}`
    expect(
      (await send(`${app.url}/user/admin`, { headers: { cookie: plain, 'x-mediactl-csrf': csrf, origin: site } }))
        .status,
    ).toBe(401)
  })
})
