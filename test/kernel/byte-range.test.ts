import { describe, expect, it } from 'vitest'
import { byteHeaders, byteRange, validatorsOf } from '../../src/kernel/http/byte-range.js'
import { HttpError } from '../../src/kernel/http/errors.js'

const stat = { size: 1000, modifiedAt: new Date('2026-01-02T03:04:05Z') }
const validators = validatorsOf(stat)

function unsatisfiable(header: string, size = 1000): HttpError {
  try {
    byteRange(header, size)
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError)
    return error as HttpError
  }
  throw new Error(`expected 416 for ${header}`)
}

describe('byteRange (RFC 9110 byte ranges)', () => {
  it('no header: the whole object', () => {
    expect(byteRange(undefined, 1000)).toBeNull()
  })

  it('closed, open and suffix ranges; an end past the object is cut', () => {
    expect(byteRange('bytes=0-99', 1000)).toEqual({ start: 0, end: 99 })
    expect(byteRange('bytes=990-', 1000)).toEqual({ start: 990, end: 999 })
    expect(byteRange('bytes=-10', 1000)).toEqual({ start: 990, end: 999 })
    expect(byteRange('bytes=-5000', 1000)).toEqual({ start: 0, end: 999 })
    expect(byteRange('bytes=500-5000', 1000)).toEqual({ start: 500, end: 999 })
    expect(byteRange(' Bytes = 1 - 2 ', 1000)).toEqual({ start: 1, end: 2 })
  })

  it('416 with Content-Range: bytes */<size> for a start at or past the end, a 0-byte suffix, any range of an empty object', () => {
    for (const header of ['bytes=1000-', 'bytes=1000-2000', 'bytes=-0']) {
      const error = unsatisfiable(header)
      expect(error.status).toBe(416)
      expect(error.headers).toEqual({ 'Content-Range': 'bytes */1000', 'Accept-Ranges': 'bytes' })
    }
    expect(unsatisfiable('bytes=0-', 0).headers['Content-Range']).toBe('bytes */0')
  })

  it('ignores (whole object) other units, malformed and reversed ranges, several ranges', () => {
    for (const header of [
      'entities=0-1',
      'bytes=a-b',
      'bytes=5-1',
      'bytes=-',
      'bytes=0-1,5-6',
      'bytes=99999999999999999999-',
    ]) {
      expect(byteRange(header, 1000), header).toBeNull()
    }
  })

  it('If-Range: the range when the ETag or date matches, the whole object otherwise', () => {
    expect(byteRange('bytes=0-9', 1000, validators.etag, validators)).toEqual({ start: 0, end: 9 })
    expect(byteRange('bytes=0-9', 1000, validators.lastModified, validators)).toEqual({ start: 0, end: 9 })
    expect(byteRange('bytes=0-9', 1000, '"other"', validators)).toBeNull()
    expect(byteRange('bytes=0-9', 1000, `W/${validators.etag}`, validators)).toBeNull()
    expect(byteRange('bytes=0-9', 1000, 'Thu, 01 Jan 1970 00:00:00 GMT', validators)).toBeNull()
  })

  it('validators change with the size or the date; headers of a whole and of a ranged answer', () => {
    expect(validatorsOf({ ...stat, size: 1001 }).etag).not.toBe(validators.etag)
    expect(validatorsOf({ ...stat, modifiedAt: new Date(0) }).etag).not.toBe(validators.etag)
    expect(validators.lastModified).toBe('Fri, 02 Jan 2026 03:04:05 GMT')
    expect(byteHeaders(1000, null, validators)).toEqual({
      'Accept-Ranges': 'bytes',
      ETag: validators.etag,
      'Last-Modified': validators.lastModified,
      'Content-Length': '1000',
    })
    expect(byteHeaders(1000, { start: 10, end: 19 }, validators)).toMatchObject({
      'Content-Length': '10',
      'Content-Range': 'bytes 10-19/1000',
    })
  })
})
