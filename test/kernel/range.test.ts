import { describe, expect, it } from 'vitest'
import { HttpError } from '../../src/kernel/http/errors.js'
import { pageFor, parseRange } from '../../src/kernel/http/range.js'

/** Runs `fn` and returns the HttpError it throws (fails the test when it does not throw one). */
function thrown(fn: () => unknown): HttpError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError)
    return error as HttpError
  }
  throw new Error('expected an HttpError')
}

describe('parseRange', () => {
  it('returns null without a header', () => {
    expect(parseRange(undefined, 10)).toBeNull()
  })

  it('parses a closed range', () => {
    expect(parseRange('entities=2-5', 10)).toEqual({ start: 2, end: 5 })
  })

  it('parses an open range (to the end)', () => {
    expect(parseRange('entities=3-', 10)).toEqual({ start: 3, end: null })
  })

  it('tolerates spaces around the parts', () => {
    expect(parseRange('  entities = 1 - 4 ', 10)).toEqual({ start: 1, end: 4 })
  })

  it('keeps only the first range of a list', () => {
    expect(parseRange('entities=0-1, 5-9', 10)).toEqual({ start: 0, end: 1 })
    expect(parseRange('entities=4-4,garbage', 10)).toEqual({ start: 4, end: 4 })
  })

  it('accepts a single-entity range', () => {
    expect(parseRange('entities=0-0', 1)).toEqual({ start: 0, end: 0 })
  })

  it.each([
    ['end before start', 'entities=5-2'],
    ['wrong unit', 'items=0-4'],
    ['bytes unit', 'bytes=0-4'],
    ['non-numeric start', 'entities=x'],
    ['non-numeric end', 'entities=0-y'],
    ['suffix range', 'entities=-5'],
    ['negative start', 'entities=-1-3'],
    ['empty value', 'entities='],
    ['empty header', ''],
    ['missing dash', 'entities=3'],
    ['first range malformed', 'entities=a-b,0-1'],
    ['decimal', 'entities=1.5-2'],
  ])('answers 416 with Content-Range */total for %s', (_label, header) => {
    const error = thrown(() => parseRange(header, 7))
    expect(error.status).toBe(416)
    expect(error.headers).toEqual({ 'Content-Range': 'entities */7' })
    expect(error.message.length).toBeGreaterThan(0)
  })

  it('answers 416 for bounds beyond safe integers', () => {
    const error = thrown(() => parseRange('entities=0-99999999999999999999', 3))
    expect(error.status).toBe(416)
    expect(error.headers['Content-Range']).toBe('entities */3')
  })

  it('names both bounds when the end is before the start', () => {
    const error = thrown(() => parseRange('entities=5-2', 10))
    expect(error.message).toContain('5')
    expect(error.message).toContain('2')
  })
})

describe('pageFor', () => {
  it('gives the whole list without Range', () => {
    expect(pageFor(undefined, 4, 100)).toEqual({
      page: { offset: 0, limit: 4 },
      headers: { 'Content-Range': 'entities 0-3/4', 'Accept-Ranges': 'entities' },
    })
  })

  it('caps the whole list at the configured maximum', () => {
    expect(pageFor(undefined, 10, 3)).toEqual({
      page: { offset: 0, limit: 3 },
      headers: { 'Content-Range': 'entities 0-2/10', 'Accept-Ranges': 'entities' },
    })
  })

  it('gives the requested slice, inclusive', () => {
    expect(pageFor('entities=2-4', 10, 100)).toEqual({
      page: { offset: 2, limit: 3 },
      headers: { 'Content-Range': 'entities 2-4/10', 'Accept-Ranges': 'entities' },
    })
  })

  it('gives one entity for entities=0-0', () => {
    expect(pageFor('entities=0-0', 5, 100)).toEqual({
      page: { offset: 0, limit: 1 },
      headers: { 'Content-Range': 'entities 0-0/5', 'Accept-Ranges': 'entities' },
    })
  })

  it('clips an end past the list to the last entity', () => {
    expect(pageFor('entities=3-50', 5, 100)).toEqual({
      page: { offset: 3, limit: 2 },
      headers: { 'Content-Range': 'entities 3-4/5', 'Accept-Ranges': 'entities' },
    })
  })

  it('runs an open range to the end', () => {
    expect(pageFor('entities=1-', 5, 100).headers['Content-Range']).toBe('entities 1-4/5')
    expect(pageFor('entities=1-', 5, 100).page).toEqual({ offset: 1, limit: 4 })
  })

  it('caps a requested range at the configured maximum', () => {
    expect(pageFor('entities=2-', 100, 10)).toEqual({
      page: { offset: 2, limit: 10 },
      headers: { 'Content-Range': 'entities 2-11/100', 'Accept-Ranges': 'entities' },
    })
  })

  it('uses only the first range of a list', () => {
    expect(pageFor('entities=1-1,3-4', 5, 100).headers['Content-Range']).toBe('entities 1-1/5')
  })

  it('answers an empty page with */total when the start is at or past the end of a non-empty list', () => {
    for (const header of ['entities=5-9', 'entities=7-', 'entities=50-99']) {
      expect(pageFor(header, 5, 100), header).toEqual({
        page: { offset: expect.any(Number), limit: 0 },
        headers: { 'Content-Range': 'entities */5', 'Accept-Ranges': 'entities' },
      })
    }
    // The last entity itself is still served.
    expect(pageFor('entities=4-9', 5, 100).headers['Content-Range']).toBe('entities 4-4/5')
  })

  it('answers an empty list with */0 instead of 416', () => {
    expect(pageFor(undefined, 0, 100)).toEqual({
      page: { offset: 0, limit: 0 },
      headers: { 'Content-Range': 'entities */0', 'Accept-Ranges': 'entities' },
    })
    expect(pageFor('entities=0-9', 0, 100).page.limit).toBe(0)
    expect(pageFor('entities=0-9', 0, 100).headers['Content-Range']).toBe('entities */0')
  })

  it('still rejects a malformed header on an empty list', () => {
    const error = thrown(() => pageFor('entities=x', 0, 100))
    expect(error.status).toBe(416)
    expect(error.headers['Content-Range']).toBe('entities */0')
  })
})
