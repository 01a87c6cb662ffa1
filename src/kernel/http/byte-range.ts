import { HttpError } from './errors.js'

/** An inclusive byte range of an object of known size (as the storage port reads it). */
export interface BytesRange {
  start: number
  /** Last byte, inclusive, always within the object. */
  end: number
}

/** What stored media answers carry to validate a conditional range request (`If-Range`). */
export interface Validators {
  /** A strong entity tag, quoted (`"<size>-<mtime>"`). */
  etag: string
  /** HTTP date of the last write. */
  lastModified: string
}

const BYTES = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i

/** The validators of an object: the ETag changes whenever its size or write date does. */
export function validatorsOf(stat: { size: number; modifiedAt: Date }): Validators {
  return {
    etag: `"${stat.size.toString(36)}-${stat.modifiedAt.getTime().toString(36)}"`,
    lastModified: stat.modifiedAt.toUTCString(),
  }
}

/** The 416 answer for an object of `size` bytes (RFC 9110: `Content-Range: bytes *\/<size>`). */
function unsatisfiable(size: number): HttpError {
  return new HttpError(
    416,
    `The requested byte range is outside the ${size} bytes of the object.`,
    {},
    { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' },
  )
}

/**
 * The byte range a `Range` header asks of an object of `size` bytes, or null for the whole
 * object (RFC 9110 §14): `bytes=a-b`, `bytes=a-` and the suffix `bytes=-n`; an end past the
 * object is cut at its last byte. Throws 416 when the range starts at or past the end (or
 * asks a 0-byte suffix). Another unit, a malformed header, several ranges (only the first
 * would be served: players ask one) and an `If-Range` that does not match the object's
 * validators are ignored: the whole object is answered, as the RFC allows.
 */
export function byteRange(
  header: string | undefined,
  size: number,
  ifRange?: string,
  validators?: Validators,
): BytesRange | null {
  if (header === undefined || header.includes(',')) return null
  if (ifRange !== undefined && (!validators || !matchesIfRange(ifRange.trim(), validators))) return null
  const match = BYTES.exec(header)
  if (!match || (match[1] === '' && match[2] === '')) return null
  const first = match[1] === '' ? null : Number(match[1])
  const last = match[2] === '' ? null : Number(match[2])
  if ((first !== null && !Number.isSafeInteger(first)) || (last !== null && !Number.isSafeInteger(last))) return null
  if (first === null) {
    // Suffix: the last `last` bytes.
    if (last === 0 || size === 0) throw unsatisfiable(size)
    return { start: Math.max(0, size - last!), end: size - 1 }
  }
  if (last !== null && last < first) return null
  if (first >= size) throw unsatisfiable(size)
  return { start: first, end: last === null ? size - 1 : Math.min(last, size - 1) }
}

/** If-Range holds an entity tag (strong comparison) or an HTTP date (exact match with Last-Modified). */
function matchesIfRange(value: string, validators: Validators): boolean {
  if (value.startsWith('"') || value.startsWith('W/')) return value === validators.etag
  return value === validators.lastModified
}

/**
 * The headers of a byte answer: `Accept-Ranges`, the validators, `Content-Length`, and for a
 * range `Content-Range` (its status is then 206).
 */
export function byteHeaders(size: number, range: BytesRange | null, validators: Validators): Record<string, string> {
  const headers: Record<string, string> = {
    'Accept-Ranges': 'bytes',
    ETag: validators.etag,
    'Last-Modified': validators.lastModified,
    'Content-Length': String(range ? range.end - range.start + 1 : size),
  }
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`
  return headers
}
