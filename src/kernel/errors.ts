import type { FieldErrors } from './http/errors.js'

export interface UserErrorOptions {
  /** What to do about it, appended to the message after a colon (`run "mediactl migrate" first`). */
  hint?: string
  /** The fields refused, by their API names (`max_users`, `url`), with what is wrong with each. */
  fields?: FieldErrors
  cause?: unknown
}

/**
 * A mistake of the user's, not a fault of mediactl: a bad flag or configuration key, an
 * unknown platform or user, fields the rules refuse. The CLI prints it as one line saying
 * what to do, without a stack, and exits 1; anything else thrown is a bug or an outage,
 * printed with its stack. Its message is whole: the problem, then the hint when there is one.
 */
export class UserError extends Error {
  override name = 'UserError'
  /** What to do about it, when known. */
  readonly hint: string | undefined
  /** The refused fields by their API names; empty when the mistake is no field's. */
  readonly fields: FieldErrors

  constructor(problem: string, options: UserErrorOptions = {}) {
    super(options.hint ? `${problem}: ${options.hint}` : problem, { cause: options.cause })
    this.hint = options.hint
    this.fields = options.fields ?? {}
  }
}
