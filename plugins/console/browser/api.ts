/**
 * The console's client of the API: the same XML routes as every other client, authenticated by the session cookie
 * with its CSRF token in a header (the kernel refuses a cookie without it). No second API.
 */

/** What the page was given by the server (meta tags of the console's shell). */
export interface Session {
  csrf: string
  username: string
  /** The public URL without a trailing slash (it may have a path prefix). */
  base: string
  /**
   * The flags of the user's profile as the page was served (`file.edit`...): what the console offers. The API still
   * decides each request; a control it would refuse is only not shown.
   */
  flags: ReadonlySet<string>
}

function meta(name: string): string {
  const element = document.querySelector(`meta[name="${name}"]`)
  return element ? element.getAttribute('content') || '' : ''
}

export function readSession(): Session {
  return {
    csrf: meta('mediactl-csrf'),
    username: meta('mediactl-user'),
    base: meta('mediactl-base'),
    flags: new Set(meta('mediactl-flags').split(' ').filter(Boolean)),
  }
}

/** An API answer other than 2xx: its status and the message of its XML error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The text of the first `name` child of `parent`, or ''. */
export function childText(parent: Element | Document, name: string): string {
  const element = parent.getElementsByTagName(name)[0]
  return element ? element.textContent || '' : ''
}

/** The path of an API link (`href`) relative to the public URL: `/platform/default`. */
export function pathOf(session: Session, href: string): string {
  const path = new URL(href, location.href).pathname
  const prefix = new URL(`${session.base}/`).pathname.replace(/\/$/, '')
  return prefix && path.startsWith(prefix) ? path.slice(prefix.length) : path
}

/** The slug at the end of an API link (`…/platform/default` → `default`), '' without a link. */
export function slugOfHref(session: Session, href: string | null | undefined): string {
  if (!href) return ''
  const path = pathOf(session, href)
  return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1))
}

/** The `href` of the first `name` child of `parent` (`<media href="…/media/news"/>`), as a slug. */
export function linkedSlug(session: Session, parent: Element | Document, name: string): string {
  return slugOfHref(session, parent.getElementsByTagName(name)[0]?.getAttribute('href'))
}

/** The slugs of the media sites the user sees: the `media` links of the services root (`GET /`). */
export async function mediaSlugs(session: Session): Promise<string[]> {
  const root = await getXml(session, '/')
  return Array.from(root.getElementsByTagName('media')).map((element) =>
    decodeURIComponent(pathOf(session, element.getAttribute('href') || '').replace(/^\/media\//, '')),
  )
}

/** Why a request failed, for a problem line: the API's own message (ApiError), or the browser's. */
export const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * What `load` answers, or null when the API refuses the user (403, or 404 for what they may not see): a section then
 * says it is not for them rather than showing an error.
 */
export async function unlessRefused<T>(load: Promise<T>): Promise<T | null> {
  try {
    return await load
  } catch (error) {
    if (error instanceof ApiError && (error.status === 403 || error.status === 404)) return null
    throw error
  }
}

/**
 * The API path of the signed-in user's own platform (`/platform/default`), from the `platform` link of their user
 * (`GET /user/<me>`), or null when their user has none: the platform the sections read and manage.
 */
export async function findOwnPlatformPath(session: Session): Promise<string | null> {
  const user = await getXml(session, `/user/${encodeURIComponent(session.username)}`)
  const link = user.getElementsByTagName('platform')[0]?.getAttribute('href')
  return link ? pathOf(session, link) : null
}

/** The API path of the user's own platform, for a section that manages it: an error when there is none. */
export async function ownPlatformPath(session: Session): Promise<string> {
  const path = await findOwnPlatformPath(session)
  if (!path) throw new Error('the user has no platform')
  return path
}

/** The slug of the user's own platform (`default`), '' when there is none. */
export async function ownPlatformSlug(session: Session): Promise<string> {
  const path = await findOwnPlatformPath(session)
  return path ? decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) : ''
}

/** GETs an API route as XML (see `xmlOf` for refusals). */
export function getXml(session: Session, path: string): Promise<Document> {
  return requestXml(session, 'GET', path)
}

/** One page of a list route (`Range: entities=<start>-<end>`): the answer and the list's total (`Content-Range`). */
export async function getPage(
  session: Session,
  path: string,
  start: number,
  count: number,
): Promise<{ doc: Document; total: number }> {
  const response = await request(session, 'GET', path, undefined, { Range: `entities=${start}-${start + count - 1}` })
  const total = /\/(\d+)$/.exec(response.headers.get('Content-Range') || '')
  return { doc: await xmlOf(session, response), total: total ? Number(total[1]) : 0 }
}

/** POSTs to an API route (a form body when given; FormData for a multipart upload), answering its XML. */
export function postXml(session: Session, path: string, form?: Record<string, string> | FormData): Promise<Document> {
  return requestXml(session, 'POST', path, form)
}

/** PUTs a form to an API route (a partial update), answering its XML. */
export function putXml(session: Session, path: string, form: Record<string, string>): Promise<Document> {
  return requestXml(session, 'PUT', path, form)
}

/** DELETEs what an API route names (204, no body). */
export async function deleteAt(session: Session, path: string): Promise<void> {
  await xmlOf(session, await request(session, 'DELETE', path))
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

async function requestXml(session: Session, method: Method, path: string, form?: Record<string, string> | FormData) {
  return xmlOf(session, await request(session, method, path, form))
}

function request(
  session: Session,
  method: Method,
  path: string,
  form?: Record<string, string> | FormData,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${session.base}${path}`, {
    method,
    headers: { Accept: 'application/xml', 'X-Mediactl-Csrf': session.csrf, ...headers },
    body: form instanceof FormData || !form ? form : new URLSearchParams(form),
    credentials: 'same-origin',
  })
}

/**
 * The XML of an answer. A 401 means the session ended (idle, signed out elsewhere, a new password): the page goes to
 * the sign-in page. Other refusals throw ApiError with the API's own message.
 */
async function xmlOf(session: Session, response: Response): Promise<Document> {
  const body = await response.text()
  const document = new DOMParser().parseFromString(body || '<empty/>', 'application/xml')
  if (response.status === 401) {
    location.assign(`${session.base}/console/sign-in`)
  }
  if (!response.ok) throw new ApiError(response.status, problemOf(document) || response.statusText)
  return document
}

/** An error answer's message, with each wrong field's own (`name: must be at most 255 characters`). */
function problemOf(document: Document): string {
  const fields = Array.from(document.getElementsByTagName('field')).map(
    (field) => `${field.getAttribute('name')}: ${field.textContent}`,
  )
  return [childText(document, 'message'), ...fields].filter(Boolean).join(' ')
}
