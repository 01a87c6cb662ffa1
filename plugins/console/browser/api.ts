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
}

function meta(name: string): string {
  const element = document.querySelector(`meta[name="${name}"]`)
  return element ? element.getAttribute('content') || '' : ''
}

export function readSession(): Session {
  return { csrf: meta('mediactl-csrf'), username: meta('mediactl-user'), base: meta('mediactl-base') }
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

/**
 * GETs an API route as XML. A 401 means the session ended (idle, signed out elsewhere, a new password): the page goes
 * to the sign-in page. Other refusals throw ApiError with the API's own message.
 */
export function getXml(session: Session, path: string): Promise<Document> {
  return requestXml(session, 'GET', path)
}

/** POSTs to an API route (a form body when given), answering its XML. */
export function postXml(session: Session, path: string, form?: Record<string, string>): Promise<Document> {
  return requestXml(session, 'POST', path, form)
}

async function requestXml(
  session: Session,
  method: 'GET' | 'POST',
  path: string,
  form?: Record<string, string>,
): Promise<Document> {
  const response = await fetch(`${session.base}${path}`, {
    method,
    headers: { Accept: 'application/xml', 'X-Mediactl-Csrf': session.csrf },
    body: form ? new URLSearchParams(form) : undefined,
    credentials: 'same-origin',
  })
  const body = await response.text()
  const document = new DOMParser().parseFromString(body, 'application/xml')
  if (response.status === 401) {
    location.assign(`${session.base}/console/sign-in`)
  }
  if (!response.ok) throw new ApiError(response.status, childText(document, 'message') || response.statusText)
  return document
}
