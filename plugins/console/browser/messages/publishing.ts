/**
 * The messages of the publishing section (media sites, streams, channels, widgets), in English and French: the same keys in both (the type checks it). They are part of the
 * console's catalogs (en.ts and fr.ts spread them).
 */
export const publishingEn = {
  'nav.publishing': 'Publishing',
  'publishing.title': 'Publishing',
} as const

export const publishingFr: Record<keyof typeof publishingEn, string> = {
  'nav.publishing': 'Publication',
  'publishing.title': 'Publication',
}
