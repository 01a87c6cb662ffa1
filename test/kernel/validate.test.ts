import { describe, expect, it } from 'vitest'
import { HttpError } from '../../src/kernel/http/errors.js'
import { type Form, formFromQuery } from '../../src/kernel/http/forms.js'
import { FieldReader } from '../../src/kernel/http/validate.js'

function form(fields: Record<string, string>): Form {
  return formFromQuery(new URLSearchParams(fields).toString())
}

function reader(fields: Record<string, string>, mode: 'create' | 'update' = 'create'): FieldReader {
  return new FieldReader(form(fields), mode)
}

function doneError(v: FieldReader): HttpError {
  try {
    v.done()
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError)
    return error as HttpError
  }
  throw new Error('expected done() to throw')
}

describe('FieldReader.string', () => {
  it('returns the trimmed value', () => {
    const v = reader({ name: '  Hello  ' })
    expect(v.string('name')).toBe('Hello')
    expect(v.errors).toEqual({})
  })

  it('create: a missing required field fails with "is required"', () => {
    const v = reader({})
    expect(v.string('name', { required: true })).toBeUndefined()
    expect(v.errors).toEqual({ name: 'is required' })
  })

  it('create: an empty or blank required field fails', () => {
    const v = reader({ name: '   ' })
    expect(v.string('name', { required: true })).toBeNull()
    expect(v.errors).toEqual({ name: 'is required' })
  })

  it('create: a missing optional field is undefined, an empty one null', () => {
    const v = reader({ b: '' })
    expect(v.string('a')).toBeUndefined()
    expect(v.string('b')).toBeNull()
    expect(v.errors).toEqual({})
  })

  it('update: an absent required field is unchanged (undefined), not an error', () => {
    const v = reader({}, 'update')
    expect(v.string('name', { required: true })).toBeUndefined()
    expect(v.errors).toEqual({})
  })

  it('update: a required field sent empty fails with "cannot be empty"', () => {
    const v = reader({ name: '' }, 'update')
    expect(v.string('name', { required: true })).toBeNull()
    expect(v.errors).toEqual({ name: 'cannot be empty' })
  })

  it('update: an optional field sent empty is cleared (null)', () => {
    const v = reader({ title: '' }, 'update')
    expect(v.string('title')).toBeNull()
    expect(v.errors).toEqual({})
  })

  it('counts characters (code points), not UTF-16 units or bytes', () => {
    const ok = reader({ name: '🎬🎬🎬' })
    expect(ok.string('name', { max: 3 })).toBe('🎬🎬🎬')
    expect(ok.errors).toEqual({})
    const long = reader({ name: 'éééé' })
    expect(long.string('name', { max: 3 })).toBeUndefined()
    expect(long.errors).toEqual({ name: 'must be at most 3 characters' })
  })

  it('checks min, exact length and pattern', () => {
    const v = reader({ a: 'ab', b: 'abc', c: 'x1' })
    expect(v.string('a', { min: 3 })).toBeUndefined()
    expect(v.string('b', { length: 2 })).toBeUndefined()
    expect(v.string('c', { pattern: { regex: /^[a-z]+$/, message: 'letters only' } })).toBeUndefined()
    expect(v.errors).toEqual({
      a: 'must be at least 3 characters',
      b: 'must be exactly 2 characters',
      c: 'letters only',
    })
  })

  it('refuses control characters that XML cannot carry', () => {
    const v = reader({ a: 'x\u0001y', b: 'tab\there\nnew line' })
    expect(v.string('a')).toBeUndefined()
    expect(v.string('b')).toBe('tab\there\nnew line')
    expect(v.errors).toEqual({ a: 'must not contain control characters' })
  })

  it('reads an alias when the main name is absent', () => {
    const v = reader({ subtitle: 'Sub' })
    expect(v.string('sub_title', { aliases: ['subtitle'] })).toBe('Sub')
    expect(v.has('sub_title', ['subtitle'])).toBe(true)
    expect(v.has('sub_title')).toBe(false)
  })

  it('prefers the main name over an alias', () => {
    const v = reader({ subtitle: 'alias', sub_title: 'main' })
    expect(v.string('sub_title', { aliases: ['subtitle'] })).toBe('main')
  })

  it('refuses a nested or repeated value where a single one is expected', () => {
    const v = new FieldReader(formFromQuery('name[a]=1&tags[]=x&tags[]=y'), 'create')
    expect(v.string('name')).toBeUndefined()
    expect(v.string('tags')).toBeUndefined()
    expect(v.errors).toEqual({ name: 'must be a single value', tags: 'must be a single value' })
  })

  it('keeps the first failure of a field', () => {
    const v = reader({})
    v.fail('x', 'first')
    v.fail('x', 'second')
    expect(v.errors).toEqual({ x: 'first' })
  })
})

describe('FieldReader.integer', () => {
  it('parses whole numbers, with a sign', () => {
    const v = reader({ a: '42', b: '+7', c: ' 0 ' })
    expect(v.integer('a')).toBe(42)
    expect(v.integer('b')).toBe(7)
    expect(v.integer('c')).toBe(0)
    expect(v.errors).toEqual({})
  })

  it.each(['1.5', '1e3', 'abc', '0x10', '12abc', '9007199254740993'])('refuses %s', (value) => {
    const v = reader({ n: value })
    expect(v.integer('n')).toBeUndefined()
    expect(v.errors).toEqual({ n: 'must be a whole number' })
  })

  it('defaults to 0 or more', () => {
    const v = reader({ n: '-1' })
    expect(v.integer('n')).toBeUndefined()
    expect(v.errors).toEqual({ n: 'must be 0 or more' })
  })

  it('checks explicit bounds', () => {
    const v = reader({ a: '11', b: '-5', c: '10' })
    expect(v.integer('a', { min: 1, max: 10 })).toBeUndefined()
    expect(v.integer('b', { min: -4, max: 4 })).toBeUndefined()
    expect(v.integer('c', { min: 1, max: 10 })).toBe(10)
    expect(v.errors).toEqual({ a: 'must be between 1 and 10', b: 'must be between -4 and 4' })
  })

  it('create: required and missing fails; update: empty required fails', () => {
    const create = reader({})
    create.integer('n', { required: true })
    expect(create.errors).toEqual({ n: 'is required' })
    const update = reader({ n: '' }, 'update')
    expect(update.integer('n', { required: true })).toBeNull()
    expect(update.errors).toEqual({ n: 'cannot be empty' })
  })
})

describe('FieldReader.oneOf / boolean / email / dateTime', () => {
  it('oneOf accepts listed words and names them when refusing', () => {
    const v = reader({ a: 'public', b: 'secret' })
    expect(v.oneOf('a', ['public', 'private'] as const)).toBe('public')
    expect(v.oneOf('b', ['public', 'private'] as const)).toBeUndefined()
    expect(v.errors).toEqual({ b: 'must be one of: public, private' })
  })

  it('boolean reads 0/1 and true/false', () => {
    const v = reader({ a: '1', b: '0', c: 'TRUE', d: 'false', e: 'yes' })
    expect(v.boolean('a')).toBe(true)
    expect(v.boolean('b')).toBe(false)
    expect(v.boolean('c')).toBe(true)
    expect(v.boolean('d')).toBe(false)
    expect(v.boolean('e')).toBeUndefined()
    expect(v.errors).toEqual({ e: 'must be 0 or 1' })
  })

  it('email accepts addresses and refuses malformed ones', () => {
    const v = reader({ a: 'jane.doe+tag@example.org', b: 'not-an-email', c: 'a@b', d: 'x y@example.org' })
    expect(v.email('a')).toBe('jane.doe+tag@example.org')
    expect(v.email('b')).toBeUndefined()
    expect(v.email('c')).toBeUndefined()
    expect(v.email('d')).toBeUndefined()
    expect(v.errors).toEqual({
      b: 'must be a valid e-mail address',
      c: 'must be a valid e-mail address',
      d: 'must be a valid e-mail address',
    })
  })

  it('email is at most 255 characters by default', () => {
    const v = reader({ a: `${'x'.repeat(250)}@example.org` })
    expect(v.email('a')).toBeUndefined()
    expect(v.errors).toEqual({ a: 'must be at most 255 characters' })
  })

  it('dateTime accepts ISO 8601 and Unix seconds', () => {
    const v = reader({ a: '2024-03-01T12:30:00+02:00', b: '1700000000', c: '2024-03-01' })
    expect(v.dateTime('a')?.toISOString()).toBe('2024-03-01T10:30:00.000Z')
    expect(v.dateTime('b')?.toISOString()).toBe('2023-11-14T22:13:20.000Z')
    expect(v.dateTime('c')?.toISOString()).toBe('2024-03-01T00:00:00.000Z')
    expect(v.errors).toEqual({})
  })

  it.each(['yesterday', 'March 1, 2024', '2024-13-45T00:00:00Z', '12.5'])('dateTime refuses %s', (value) => {
    const v = reader({ d: value })
    expect(v.dateTime('d')).toBeUndefined()
    expect(v.errors).toEqual({ d: 'must be an ISO 8601 date-time or Unix seconds' })
  })
})

describe('FieldReader.done', () => {
  it('does nothing when every field passed', () => {
    const v = reader({ name: 'x' })
    v.string('name', { required: true })
    expect(() => v.done()).not.toThrow()
  })

  it('throws one 412 listing every failing field', () => {
    const v = reader({ max_users: 'many', email: 'nope' })
    v.string('name', { required: true })
    v.integer('max_users')
    v.email('email')
    const error = doneError(v)
    expect(error.status).toBe(412)
    expect(error.fields).toEqual({
      name: 'is required',
      max_users: 'must be a whole number',
      email: 'must be a valid e-mail address',
    })
  })
})

describe('FieldReader.words', () => {
  it('reads comma-separated words and repeated values, trimmed, without empties or repeats, in order', () => {
    expect(reader({ events: ' a, b ,,a ,c ' }).words('events')).toEqual(['a', 'b', 'c'])
    const repeated = new FieldReader(formFromQuery('events[]=x,y&events[]=z&events[]=x'), 'create')
    expect(repeated.words('events')).toEqual(['x', 'y', 'z'])
    expect(repeated.errors).toEqual({})
    // A plain field sent more than once: every value for a list, the last one for any other field.
    const plain = new FieldReader(formFromQuery('events=x&title=a&events=y,z&title=b'), 'create')
    expect(plain.words('events')).toEqual(['x', 'y', 'z'])
    expect(plain.string('title')).toBe('b')
  })

  it('absent is undefined, empty is null; required fails as other fields do', () => {
    expect(reader({}).words('events')).toBeUndefined()
    expect(reader({ events: ' , ' }).words('events')).toBeNull()
    const create = reader({})
    create.words('events', { required: true })
    expect(create.errors).toEqual({ events: 'is required' })
    const update = reader({ events: ',' }, 'update')
    expect(update.words('events', { required: true })).toBeNull()
    expect(update.errors).toEqual({ events: 'cannot be empty' })
  })

  it('bounds the number of words, and refuses control characters and nested values', () => {
    const many = reader({ events: 'a,b,c' })
    expect(many.words('events', { max: 2 })).toBeUndefined()
    expect(many.errors).toEqual({ events: 'must be at most 2 words' })
    const control = reader({ events: 'a,b\u0001' })
    expect(control.words('events')).toBeUndefined()
    expect(control.errors).toEqual({ events: 'must not contain control characters' })
    const nested = new FieldReader(formFromQuery('events[a]=1'), 'create')
    expect(nested.words('events')).toBeUndefined()
    expect(nested.errors).toEqual({ events: 'must be words separated by commas' })
  })
})
