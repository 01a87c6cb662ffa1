import { request } from 'node:http'
import type { TestApp } from '../../helpers/app.js'
import { SIGN_IN_LINKS } from '../../../plugins/console/index.js'

/** An answer as a browser would see it: status, headers, body (redirects not followed). */
export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One HTTP request on a real socket, headers exactly as given (Origin, Cookie, Sec-Fetch-Site...). */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; form?: Record<string, string> } = {},
): Promise<Answer> {
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined
  const headers = { ...options.headers }
  if (body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    headers['content-length'] = String(Buffer.byteLength(body))
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      )
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** The `Set-Cookie` lines of an answer. */
export const setCookies = (answer: Answer): string[] => {
  const value = answer.headers['set-cookie']
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

/** The value a `Set-Cookie` gives cookie `name`, or undefined. */
export function cookieOf(answer: Answer, name: string): string | undefined {
  const line = setCookies(answer).find((cookie) => cookie.startsWith(`${name}=`))
  return line?.slice(name.length + 1).split(';')[0]
}

/** The CSRF token the console's shell carries for its script. */
export function csrfOf(page: string): string {
  const found = /<meta name="mediactl-csrf" content="([^"]+)">/.exec(page)
  if (!found) throw new Error('no CSRF token in the page')
  return found[1]!
}

/** A one-time sign-in link for `username`, as `mediactl user sign-in-link` makes it. */
export async function linkFor(app: TestApp, username: string): Promise<string> {
  return (await app.kernel.exposed(SIGN_IN_LINKS).issue(username)).url
}

/** A session as the browser holds it after choosing a password through a link: its cookie and CSRF token. */
export interface BrowserSession {
  cookie: string
  csrf: string
}

/** Uses a sign-in link (choosing `password`), then opens the console: the browser's session. */
export async function sessionThroughLink(
  app: TestApp,
  username: string,
  password = 'correct horse battery staple',
  cookieName = 'mediactl_session',
): Promise<BrowserSession> {
  const link = await linkFor(app, username)
  const used = await send(link, { form: { password, confirm: password }, headers: { origin: app.url } })
  if (used.status !== 303) throw new Error(`the link answered ${used.status}: ${used.body}`)
  const id = cookieOf(used, cookieName)!
  const cookie = `${cookieName}=${id}`
  const page = await send(`${app.url}/console`, { headers: { cookie } })
  return { cookie, csrf: csrfOf(page.body) }
}
