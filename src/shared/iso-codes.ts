import { createRequire } from 'node:module'
import countries, { type LocaleData } from 'i18n-iso-countries/index.js'
import languages from 'iso-639-1'

// The package's main entry registers its ~80 locales at import time; the core plus the
// English names is all that is needed (responses show English names).
const require = createRequire(import.meta.url)
countries.registerLocale(require('i18n-iso-countries/langs/en.json') as LocaleData)

/**
 * Whether `code` is an ISO 3166-1 alpha-2 country code written in uppercase, as requests
 * must send it (API-DECISIONS: Inputs): `FR` yes; `fr`, `FRA`, `250` no.
 */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && countries.isValid(code)
}

/** The English name of an ISO 3166-1 alpha-2 country code (`FR` → `France`); the code itself when unknown. */
export function countryName(code: string): string {
  return countries.getName(code, 'en') ?? code
}

/**
 * Whether `code` is an ISO 639-1 language code written in lowercase, as requests must send
 * it: `fr` yes; `FR`, `fra`, `french` no.
 */
export function isLanguageCode(code: string): boolean {
  return /^[a-z]{2}$/.test(code) && languages.validate(code)
}

/** The English name of an ISO 639-1 language code (`fr` → `French`); the code itself when unknown. */
export function languageName(code: string): string {
  return languages.getName(code) || code
}
