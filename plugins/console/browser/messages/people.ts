/**
 * The messages of the people section (users, groups, roles, profiles, accesses), in English and French: the same keys in both (the type checks it). They are part of the
 * console's catalogs (en.ts and fr.ts spread them).
 */
export const peopleEn = {
  'nav.people': 'People',
  'people.title': 'People',
} as const

export const peopleFr: Record<keyof typeof peopleEn, string> = {
  'nav.people': 'Personnes',
  'people.title': 'Personnes',
}
