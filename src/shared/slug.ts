/** Longest slug the contract allows (API-DECISIONS: at most 64 characters). */
export const SLUG_MAX_LENGTH = 64

/** Latin letters that Unicode does not split into a base letter and an accent (after lowercasing). */
const UNDECOMPOSED: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
}

/**
 * Turns a human name into the base of a slug: lowercased, accents folded to ASCII,
 * every other character run replaced by a single `-`, trimmed to 64 characters.
 * Uniqueness (the `-2`, `-3` suffixes) is the caller's job: see `uniqueSlug`.
 */
export function slugify(value: string): string {
  const folded = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþıħŧ]/g, (c) => UNDECOMPOSED[c] ?? c)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  const base = folded.slice(0, SLUG_MAX_LENGTH).replace(/-+$/, '')
  return base || 'item'
}

/**
 * Finds the first free slug for `value`: the plain slug, then `-2`, `-3`, ... The suffix
 * is fitted inside the 64-character limit by shortening the base.
 */
export async function uniqueSlug(value: string, taken: (slug: string) => Promise<boolean>): Promise<string> {
  const base = slugify(value)
  if (!(await taken(base))) return base
  for (let n = 2; ; n++) {
    const suffix = `-${n}`
    const candidate = base.slice(0, SLUG_MAX_LENGTH - suffix.length).replace(/-+$/, '') + suffix
    if (!(await taken(candidate))) return candidate
  }
}
