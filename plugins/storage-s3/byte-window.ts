import { Readable } from 'node:stream'

/** The bytes a GET answer holds: first and last (inclusive) of an object of `total` bytes. */
export interface Covered {
  first: number
  last: number
  total: number
}

/** What a GET answer holds, from its Content-Range (`bytes a-b/total`), else (a whole object) its length. */
export function coveredRange(contentRange: string | undefined, contentLength: number | undefined): Covered | null {
  if (contentRange) {
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange)
    return match ? { first: Number(match[1]), last: Number(match[2]), total: Number(match[3]) } : null
  }
  return contentLength === undefined ? null : { first: 0, last: contentLength - 1, total: contentLength }
}

/**
 * Bytes `skip` to `skip + length - 1` of `source` (length > 0), then the end, `source`
 * destroyed. For a service that answers a range with more than was asked (the whole
 * object, or `bytes=0-0` read as `bytes=0-`), so that callers still get exactly their range.
 */
export function byteWindow(source: Readable, skip: number, length: number): Readable {
  async function* window(): AsyncGenerator<Buffer> {
    let position = 0
    let left = length
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const from = Math.max(0, skip - position)
      position += chunk.length
      if (from >= chunk.length) continue
      const part = chunk.subarray(from, from + left)
      left -= part.length
      yield part
      // Leaving the loop destroys the source: the rest of the answer is not wanted.
      if (left === 0) return
    }
  }
  return Readable.from(window(), { objectMode: false })
}
