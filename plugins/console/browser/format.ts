import type { Language } from './messages/index.js'

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
