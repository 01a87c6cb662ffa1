import { CONTROL_CHARACTERS } from './control-characters.js'
import { type FieldErrors, invalid } from './errors.js'
import { type Form, type FormValue, repeatedValues } from './forms.js'

/**
 * `create`: absent or empty required fields fail, absent optional ones are undefined.
 * `update` (partial update): absent fields are undefined (unchanged), a field sent empty
 * is null (cleared) unless it is required, which fails.
 */
export type FieldMode = 'create' | 'update'

interface Common {
  /** The field must have a value (on create: present and non-empty; on update: non-empty if sent). */
  required?: boolean
  /** Other accepted names for the field (API-DECISIONS: `sub_title` and `subtitle`). */
  aliases?: string[]
}

export interface StringRule extends Common {
  /** Longest accepted value, in characters. */
  max?: number
  /** Shortest accepted value, in characters. */
  min?: number
  /** Exact length. */
  length?: number
  /** A pattern the value must match, with the message shown when it does not. */
  pattern?: { regex: RegExp; message: string }
}

export interface IntegerRule extends Common {
  min?: number
  max?: number
}

const EMAIL =
  /^[^\s@<>()[\]\\,;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/

/**
 * Reads and checks request fields, collecting every failure so that one 412 answer lists
 * all of them. Call `done()` after reading the fields.
 */
export class FieldReader {
  readonly errors: FieldErrors = {}

  constructor(
    readonly form: Form,
    readonly mode: FieldMode,
  ) {}

  /** Records a failure for a field (keeps the first one per field). */
  fail(field: string, message: string): void {
    this.errors[field] ??= message
  }

  /** Whether the field (or one of its aliases) was sent at all. */
  has(field: string, aliases: string[] = []): boolean {
    return [field, ...aliases].some((name) => name in this.form)
  }

  private raw(field: string, aliases: string[] = []): FormValue | undefined {
    for (const name of [field, ...aliases]) if (name in this.form) return this.form[name]
    return undefined
  }

  /** The trimmed text of a scalar field: undefined absent, null empty, false when not scalar. */
  private text(field: string, rule: Common): string | null | undefined | false {
    const value = this.raw(field, rule.aliases)
    if (value === undefined) {
      if (rule.required && this.mode === 'create') this.fail(field, 'is required')
      return undefined
    }
    if (typeof value !== 'string') {
      this.fail(field, 'must be a single value')
      return false
    }
    const trimmed = value.trim()
    if (trimmed === '') {
      if (rule.required) this.fail(field, this.mode === 'create' ? 'is required' : 'cannot be empty')
      return null
    }
    return trimmed
  }

  /** A text field; undefined when absent, null when sent empty. */
  string(field: string, rule: StringRule = {}): string | null | undefined {
    const value = this.text(field, rule)
    if (value === false) return undefined
    if (value == null) return value
    const length = [...value].length
    if (CONTROL_CHARACTERS.test(value)) this.fail(field, 'must not contain control characters')
    else if (rule.length !== undefined && length !== rule.length)
      this.fail(field, `must be exactly ${rule.length} characters`)
    else if (rule.max !== undefined && length > rule.max) this.fail(field, `must be at most ${rule.max} characters`)
    else if (rule.min !== undefined && length < rule.min) this.fail(field, `must be at least ${rule.min} characters`)
    else if (rule.pattern && !rule.pattern.regex.test(value)) this.fail(field, rule.pattern.message)
    else return value
    return undefined
  }

  /** A whole number within bounds (default: 0 or more, at most 2^53 - 1). */
  integer(field: string, rule: IntegerRule = {}): number | null | undefined {
    const value = this.text(field, rule)
    if (value === false) return undefined
    if (value == null) return value
    const min = rule.min ?? 0
    const max = rule.max ?? Number.MAX_SAFE_INTEGER
    if (!/^[-+]?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      this.fail(field, 'must be a whole number')
      return undefined
    }
    const number = Number(value)
    if (number < min || number > max) {
      this.fail(field, max === Number.MAX_SAFE_INTEGER ? `must be ${min} or more` : `must be between ${min} and ${max}`)
      return undefined
    }
    return number
  }

  /** One of a fixed set of words. */
  oneOf<T extends string>(field: string, values: readonly T[], rule: Common = {}): T | null | undefined {
    const value = this.text(field, rule)
    if (value === false) return undefined
    if (value == null) return value
    if (!values.includes(value as T)) {
      this.fail(field, `must be one of: ${values.join(', ')}`)
      return undefined
    }
    return value as T
  }

  /** 0/1 (also true/false) as a boolean. */
  boolean(field: string, rule: Common = {}): boolean | null | undefined {
    const value = this.text(field, rule)
    if (value === false) return undefined
    if (value == null) return value
    const lowered = value.toLowerCase()
    if (lowered === '1' || lowered === 'true') return true
    if (lowered === '0' || lowered === 'false') return false
    this.fail(field, 'must be 0 or 1')
    return undefined
  }

  /**
   * A list of words, sent comma-separated, as a repeated field (`events=a&events=b`, or
   * `events[]=a&events[]=b`) or both: trimmed, without empty items or repeats, in the order
   * sent. Undefined absent, null empty.
   */
  words(field: string, rule: Common & { max?: number } = {}): string[] | null | undefined {
    const value = repeatedValues(this.form, field) ?? this.raw(field, rule.aliases)
    if (value === undefined) {
      if (rule.required && this.mode === 'create') this.fail(field, 'is required')
      return undefined
    }
    if (typeof value === 'object' && !Array.isArray(value)) {
      this.fail(field, 'must be words separated by commas')
      return undefined
    }
    const items = (Array.isArray(value) ? value : [value])
      .flatMap((item) => item.split(','))
      .map((item) => item.trim())
      .filter(Boolean)
    if (!items.length) {
      if (rule.required) this.fail(field, this.mode === 'create' ? 'is required' : 'cannot be empty')
      return null
    }
    const unique = [...new Set(items)]
    if (rule.max !== undefined && unique.length > rule.max) this.fail(field, `must be at most ${rule.max} words`)
    else if (unique.some((item) => CONTROL_CHARACTERS.test(item)))
      this.fail(field, 'must not contain control characters')
    else return unique
    return undefined
  }

  /** An e-mail address of at most `max` characters. */
  email(field: string, rule: Common & { max?: number } = {}): string | null | undefined {
    return this.string(field, {
      ...rule,
      max: rule.max ?? 255,
      pattern: { regex: EMAIL, message: 'must be a valid e-mail address' },
    })
  }

  /** A date-time: ISO 8601 or Unix seconds. */
  dateTime(field: string, rule: Common = {}): Date | null | undefined {
    const value = this.text(field, rule)
    if (value === false) return undefined
    if (value == null) return value
    const date = /^\d+$/.test(value) ? new Date(Number(value) * 1000) : new Date(value)
    if (Number.isNaN(date.getTime()) || !/^\d+$|^\d{4}-\d{2}-\d{2}/.test(value)) {
      this.fail(field, 'must be an ISO 8601 date-time or Unix seconds')
      return undefined
    }
    return date
  }

  /** Throws 412 listing every failure, if any. */
  done(): void {
    if (Object.keys(this.errors).length > 0) throw invalid(this.errors)
  }
}
