import { ENCODING_STATES } from './library-query.js'
import { type Language, message } from './messages/index.js'

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB']
const UNITS_FR = ['o', 'ko', 'Mo', 'Go', 'To']

/** A size in bytes for people: `1.5 GB`, `1,5 Go`. */
export function bytes(value: number, language: Language): string {
  let size = value
  let unit = 0
  while (size >= 1000 && unit < UNITS.length - 1) {
    size /= 1000
    unit++
  }
  const digits = unit === 0 || size >= 100 ? 0 : 1
  const number = size.toLocaleString(language, { maximumFractionDigits: digits })
  return `${number} ${(language === 'fr' ? UNITS_FR : UNITS)[unit]}`
}

/** A file's encoding state for people: `Encoding 40%`, `Ready`; a status the console does not know, as it is. */
export function encodingLabel(language: Language, status: string, progress: number): string {
  const known = (ENCODING_STATES as readonly string[]).includes(status)
  return known
    ? message(language, `encoding.${status as (typeof ENCODING_STATES)[number]}`, { progress: Math.round(progress) })
    : status
}
