import type { Language } from './messages/index.js'

/** Day, month and time to the second: deliveries a few seconds apart are told apart. */
const MOMENT: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
}

/**
 * A date-time of the API for people, in the page's language. The API answers ISO 8601 or Unix seconds, as the
 * platform's `timestamps` dialect says (the settings section changes it), so both are read; anything else as it is.
 */
export function when(value: string, language: Language): string {
  if (!value) return ''
  const date = /^\d+$/.test(value) ? new Date(Number(value) * 1000) : new Date(value)
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString(language, MOMENT)
}
