/** The vendor media type some responses carry (API-DECISIONS: Representation). */
export const VENDOR_XML = 'application/vnd.mediactl+xml'
export const XML_CONTENT_TYPE = 'application/xml; charset=utf-8'

const ACCEPTED = new Set(['*/*', 'application/*', 'application/xml', 'text/xml', VENDOR_XML])

/**
 * True when the Accept header admits XML: absent, `*\/*`, `application/*`,
 * `application/xml`, `text/xml` or the vendor type, with any q other than 0.
 */
export function acceptsXml(accept: string | undefined): boolean {
  if (!accept || !accept.trim()) return true
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';')
    if (!type || !ACCEPTED.has(type.trim())) continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (q && Number(q.slice(2)) === 0) continue
    return true
  }
  return false
}

/** True when the Accept header admits `type` (exactly, as `<major>/*`, or `*\/*`), with q other than 0. */
export function accepts(accept: string | undefined, type: string): boolean {
  if (!accept || !accept.trim()) return true
  const wanted = type.toLowerCase()
  const major = `${wanted.split('/')[0]}/*`
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';')
    const name = range?.trim()
    if (name !== wanted && name !== major && name !== '*/*') continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    if (q && Number(q.slice(2)) === 0) continue
    return true
  }
  return false
}
