import { HttpError } from './errors.js'

/** The slice of a list one response carries. */
export interface Page {
  offset: number
  limit: number
}

export interface RangeRequest {
  start: number
  /** Inclusive end, or null for "to the end". */
  end: number | null
}

const RANGE = /^\s*entities\s*=\s*(\d+)\s*-\s*(\d*)\s*$/

function unsatisfiable(total: number, message: string): HttpError {
  return new HttpError(416, message, {}, { 'Content-Range': `entities */${total}` })
}

/**
 * Parses `Range: entities=<a>-<b>` or `entities=<a>-`; only the first range of a list
 * counts. Returns null when there is no header; throws 416 when it is malformed.
 */
export function parseRange(header: string | undefined, total: number): RangeRequest | null {
  if (header === undefined) return null
  const first = header.split(',')[0]!
  const match = RANGE.exec(first)
  if (!match) {
    throw unsatisfiable(total, 'Malformed Range: use "Range: entities=<start>-<end>" (0-based, inclusive).')
  }
  const start = Number(match[1])
  const end = match[2] === '' ? null : Number(match[2])
  if (!Number.isSafeInteger(start) || (end !== null && !Number.isSafeInteger(end))) {
    throw unsatisfiable(total, 'Range bounds are too large.')
  }
  if (end !== null && end < start) throw unsatisfiable(total, `Range end ${end} is before its start ${start}.`)
  return { start, end }
}

/**
 * Works out the page for a list of `total` entities and the headers that describe it.
 * `max` caps how many entities one answer carries, with or without Range.
 */
export function pageFor(
  header: string | undefined,
  total: number,
  max: number,
): { page: Page; headers: Record<string, string> } {
  const range = parseRange(header, total)
  // A well-formed range starting at or past the end is not malformed: it is the page after
  // the last one, empty (clients page until a page is short, and a list of exactly 50 asks
  // for 50-99). It answers 200 with `*/<total>`, as an empty list does.
  const start = range?.start ?? 0
  const wanted = range?.end == null ? total - 1 : Math.min(range.end, total - 1)
  const last = Math.min(wanted, start + max - 1)
  const count = Math.max(0, last - start + 1)
  const contentRange = count === 0 ? `entities */${total}` : `entities ${start}-${last}/${total}`
  return {
    page: { offset: start, limit: count },
    headers: { 'Content-Range': contentRange, 'Accept-Ranges': 'entities' },
  }
}

/**
 * The slice a Range asks for before the list's length is known, for lists that read their
 * count with their page (`HttpContext.listCounted`): `pageFor` with the same header and the
 * total gives the same offset, and a limit no larger (the rows past the end are simply not
 * there). No header: the first `max`. A malformed header: an empty slice (the 416 that
 * `pageFor` throws then needs the total).
 */
export function askedPage(header: string | undefined, max: number): Page {
  let range: RangeRequest | null
  try {
    range = parseRange(header, 0)
  } catch (error) {
    if (error instanceof HttpError) return { offset: 0, limit: 0 }
    throw error
  }
  const start = range?.start ?? 0
  const wanted = range?.end == null ? max : range.end - start + 1
  return { offset: start, limit: Math.min(wanted, max) }
}
