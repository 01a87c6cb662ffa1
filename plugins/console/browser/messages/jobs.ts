/**
 * The messages of the jobs section (for administrators), in English and French: the same keys in both (the type checks it). They are part of the
 * console's catalogs (en.ts and fr.ts spread them).
 */
export const jobsEn = {
  'nav.jobs': 'Jobs',
  'jobs.title': 'Jobs',
} as const

export const jobsFr: Record<keyof typeof jobsEn, string> = {
  'nav.jobs': 'Tâches',
  'jobs.title': 'Tâches',
}
