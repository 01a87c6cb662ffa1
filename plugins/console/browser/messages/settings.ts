/**
 * The messages of the platform settings section, in English and French: the same keys in both (the type checks it). They are part of the
 * console's catalogs (en.ts and fr.ts spread them).
 */
export const settingsEn = {
  'nav.settings': 'Settings',
  'settings.title': 'Platform settings',
} as const

export const settingsFr: Record<keyof typeof settingsEn, string> = {
  'nav.settings': 'Réglages',
  'settings.title': 'Réglages de la plateforme',
}
