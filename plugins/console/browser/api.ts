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

/** The slugs of the media sites the user sees: the `media` links of the services root (`GET /`). */
export async function mediaSlugs(session: Session): Promise<string[]> {
  const root = await getXml(session, '/')
  return Array.from(root.getElementsByTagName('media')).map((element) =>
    decodeURIComponent(pathOf(session, element.getAttribute('href') || '').replace(/^\/media\//, '')),
  )
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

/** POSTs to an API route (a form body when given), answering its XML. */
export function postXml(session: Session, path: string, form?: Record<string, string>): Promise<Document> {
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

async function requestXml(session: Session, method: Method, path: string, form?: Record<string, string>) {
  return xmlOf(session, await request(session, method, path, form))
}

function request(
  session: Session,
  method: Method,
  path: string,
  form?: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${session.base}${path}`, {
    method,
    headers: { Accept: 'application/xml', 'X-Mediactl-Csrf': session.csrf, ...headers },
    body: form ? new URLSearchParams(form) : undefined,
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
