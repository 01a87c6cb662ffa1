/**
 * The messages of the file page (plugins/console/browser/file-page.tsx), in English and French: the same keys in both (the type checks it). They are part of the
 * console's catalogs (en.ts and fr.ts spread them).
 */
export const fileEn = {
  'nav.file': 'File',
  'file.title': 'A file',
} as const

export const fileFr: Record<keyof typeof fileEn, string> = {
  'nav.file': 'Fichier',
  'file.title': 'Un fichier',
}
