import { describe, expect, it } from 'vitest'
import { SLUG_MAX_LENGTH, slugify, uniqueSlug } from '../../src/shared/slug.js'

describe('slugify', () => {
  it.each([
    ['My Platform', 'my-platform'],
    ['Crème Brûlée', 'creme-brulee'],
    ['Ça va? Très bien!', 'ca-va-tres-bien'],
    ['ÀÉÎÕÜ ñ ç å', 'aeiou-n-c-a'],
    ['Ｆｕｌｌｗｉｄｔｈ １２３', 'fullwidth-123'],
    ['  --Hello__World--  ', 'hello-world'],
    ['a   b\t\nc', 'a-b-c'],
    ['x]]>y <z> & "q" \'r\'', 'x-y-z-q-r'],
    ['Video 2024 🎬 final', 'video-2024-final'],
    ['already-a-slug', 'already-a-slug'],
    ['UPPER', 'upper'],
  ])('%j → %j', (input, expected) => {
    expect(slugify(input)).toBe(expected)
  })

  it.each(['', '   ', '---', '🎬🎬', '日本語', '!!!'])('gives "item" when nothing usable is left (%j)', (input) => {
    expect(slugify(input)).toBe('item')
  })

  it('keeps at most 64 characters', () => {
    expect(SLUG_MAX_LENGTH).toBe(64)
    const slug = slugify('a'.repeat(100))
    expect(slug).toBe('a'.repeat(64))
  })

  it('does not end with a dash after cutting', () => {
    const slug = slugify(`${'a'.repeat(63)} bcd`)
    expect(slug).toBe('a'.repeat(63))
    expect(slug.length).toBeLessThanOrEqual(64)
  })

  it('counts folded characters, not the original ones', () => {
    const slug = slugify('é'.repeat(70))
    expect(slug).toBe('e'.repeat(64))
  })

  it('only produces lowercase ASCII letters, digits and single dashes', () => {
    for (const input of ['Ünïcödé — tëst', 'a--b', '$$$ money $$$', 'Ωmega ß straße', 'x\u0000y']) {
      const slug = slugify(input)
      expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
    }
  })
})

describe('uniqueSlug', () => {
  const takenIn =
    (set: Set<string>) =>
    async (slug: string): Promise<boolean> =>
      set.has(slug)

  it('uses the plain slug when free', async () => {
    expect(await uniqueSlug('My Platform', takenIn(new Set()))).toBe('my-platform')
  })

  it('appends -2, -3, ... on clash', async () => {
    expect(await uniqueSlug('My Platform', takenIn(new Set(['my-platform'])))).toBe('my-platform-2')
    expect(await uniqueSlug('My Platform', takenIn(new Set(['my-platform', 'my-platform-2'])))).toBe('my-platform-3')
    const many = new Set(['x', ...Array.from({ length: 9 }, (_, i) => `x-${i + 2}`)])
    expect(await uniqueSlug('x', takenIn(many))).toBe('x-11')
  })

  it('fits the suffix inside 64 characters', async () => {
    const base = 'a'.repeat(64)
    const slug = await uniqueSlug(base, takenIn(new Set([base])))
    expect(slug).toBe(`${'a'.repeat(62)}-2`)
    expect(slug).toHaveLength(64)
    const taken = new Set([base, ...Array.from({ length: 8 }, (_, i) => `${'a'.repeat(62)}-${i + 2}`)])
    const tenth = await uniqueSlug(base, takenIn(taken))
    expect(tenth).toBe(`${'a'.repeat(61)}-10`)
    expect(tenth).toHaveLength(64)
  })

  it('does not leave a double dash when the cut falls on one', async () => {
    const value = `${'a'.repeat(61)}-bb`
    expect(slugify(value)).toBe(value)
    const slug = await uniqueSlug(value, takenIn(new Set([value])))
    expect(slug).toBe(`${'a'.repeat(61)}-2`)
    expect(slug).not.toContain('--')
  })

  it('suffixes the fallback "item" too', async () => {
    expect(await uniqueSlug('🎬', takenIn(new Set(['item'])))).toBe('item-2')
  })

  it('asks the checker for each candidate in order', async () => {
    const asked: string[] = []
    await uniqueSlug('b', async (slug) => {
      asked.push(slug)
      return asked.length < 3
    })
    expect(asked).toEqual(['b', 'b-2', 'b-3'])
  })
})
