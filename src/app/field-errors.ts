import type { HttpError } from '../kernel/index.js'

/**
 * A 412 of the user rules as one line for the terminal: `the username "bob" is already used;
 * choose another one`. Passwords are never echoed.
 */
export function fieldErrorsLine(error: HttpError, values: Record<string, string | undefined>): string {
  const parts = Object.entries(error.fields).map(([field, message]) => {
    const value = field === 'password' ? undefined : values[field]
    const subject = value === undefined ? `the ${field}` : `the ${field} "${value}"`
    return `${subject} ${message}${message.startsWith('is already used') ? '; choose another one' : ''}`
  })
  return parts.length ? parts.join('; ') : error.message
}
