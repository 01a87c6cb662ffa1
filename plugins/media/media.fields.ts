import type { FieldReader } from '../../src/kernel/index.js'

/** Longest description (plain text or HTML). */
export const DESCRIPTION_MAX = 65535

// RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens, 63 at most each.
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?'
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`)

/** Whether a lowercase text is a host name (no scheme, port or path), at most 253 characters. */
export const isHostName = (value: string): boolean => value.length <= 253 && HOST_NAME.test(value)

/** The media fields a request may send; undefined: not sent, null: sent empty (cleared). */
export interface MediaInput {
  name?: string
  domain?: string
  description?: string | null
  contactEmail?: string
  maxStreams?: number | null
}

/**
 * Reads the media fields. `domain_name` and `domain` name the same value (the spec's create
 * request sends both, API-DECISIONS): either is accepted, both must agree.
 */
export function readMediaFields(v: FieldReader): MediaInput {
  const name = v.string('name', { required: true, max: 255 }) ?? undefined
  const fromName = v.string('domain_name', { max: 255 })
  const fromDomain = v.string('domain', { max: 255 })
  let domain: string | undefined
  const sent = [fromName, fromDomain].filter((value): value is string => typeof value === 'string')
  if (sent.length === 0) {
    if (v.mode === 'create') {
      if (fromName === null || fromDomain === null || (!v.has('domain_name') && !v.has('domain'))) {
        v.fail('domain_name', 'is required (a host name, such as videos.example.org)')
      }
    } else if (fromName === null || fromDomain === null) {
      // Name the field the client emptied, so the answer points at what it sent.
      v.fail(fromName === null ? 'domain_name' : 'domain', 'cannot be empty')
    }
  } else {
    const [first] = sent.map((value) => value.toLowerCase())
    if (sent.some((value) => value.toLowerCase() !== first))
      v.fail('domain', 'differs from domain_name: send one host name')
    else if (!isHostName(first!)) {
      v.fail(
        fromName ? 'domain_name' : 'domain',
        'must be a host name, such as videos.example.org (no scheme, port or path)',
      )
    } else domain = first
  }
  const description = v.string('description', { max: DESCRIPTION_MAX })
  const contactEmail = v.email('contact_email', { required: true }) ?? undefined
  const maxStreams = v.integer('max_streams', { max: 2_147_483_647 })
  v.done()
  return { name, domain, description, contactEmail, maxStreams }
}
