import { CONTROL_CHARACTERS, type FieldErrors, type FormValue } from '../../src/kernel/index.js'
import {
  FILE_TYPES,
  type FileType,
  type MetadataDefinitionView,
  type MetadataType,
  type MetadataValue,
} from './metadata.types.js'

/**
 * The value rules of metadata, pure (no database, no HTTP): shared by the definition
 * endpoints (checking `default_value` against `type`) and the file store (checking the
 * `metadata[<name>]` fields of a file or a resource).
 */

/** Longest `varchar` value, and longest option of a `choice`. */
export const VARCHAR_MAX = 255
/** Longest `longvarchar` value, and longest `default_value` of any type. */
export const LONGVARCHAR_MAX = 65535

const INT32 = { min: -2147483648n, max: 2147483647n }
const SAFE = { min: BigInt(Number.MIN_SAFE_INTEGER), max: BigInt(Number.MAX_SAFE_INTEGER) }

/** A parsed value and its canonical text (what is stored), or what is wrong with it. */
export type Parsed<T> = { ok: true; value: T; text: string } | { ok: false; error: string }

const fail = (error: string): { ok: false; error: string } => ({ ok: false, error })
const length = (text: string): number => [...text].length

function text(value: string, max: number): Parsed<string> {
  if (CONTROL_CHARACTERS.test(value)) return fail('must not contain control characters')
  if (length(value) > max) return fail(`must be at most ${max} characters`)
  return { ok: true, value, text: value }
}

function whole(value: string, bounds: { min: bigint; max: bigint }): Parsed<number> {
  const message = `must be a whole number between ${bounds.min} and ${bounds.max}`
  if (!/^[-+]?\d+$/.test(value)) return fail(message)
  // BigInt, not Number: long digit strings must not be rounded into range.
  const number = BigInt(value)
  if (number < bounds.min || number > bounds.max) return fail(message)
  return { ok: true, value: Number(number), text: String(number) }
}

function date(value: string): Parsed<string> {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (match) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
    const check = new Date(0)
    // setUTCFullYear, not Date.UTC, which maps the years 0 to 99 to 1900-1999.
    check.setUTCFullYear(year, month - 1, day)
    if (check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day) {
      return { ok: true, value, text: value }
    }
  }
  return fail('must be an ISO 8601 date (YYYY-MM-DD)')
}

function flag(value: string): Parsed<boolean> {
  const lowered = value.toLowerCase()
  if (lowered === '1' || lowered === 'true') return { ok: true, value: true, text: '1' }
  if (lowered === '0' || lowered === 'false') return { ok: true, value: false, text: '0' }
  return fail('must be 0 or 1')
}

/**
 * The options of a `choice` from its comma-separated list (each trimmed): at least one, none
 * empty, none repeated, each at most 255 characters. The canonical text joins them with `,`.
 */
export function parseOptions(list: string): Parsed<string[]> {
  const options = list.split(',').map((option) => option.trim())
  if (options.every((option) => option === '')) return fail('must list the options, separated by commas')
  if (options.includes('')) return fail('has an empty option: list the options, separated by commas')
  if (options.some((option) => CONTROL_CHARACTERS.test(option))) return fail('has an option with control characters')
  if (options.some((option) => length(option) > VARCHAR_MAX)) {
    return fail(`has an option longer than ${VARCHAR_MAX} characters`)
  }
  const repeated = options.find((option, i) => options.indexOf(option) !== i)
  if (repeated !== undefined) return fail(`lists the option "${repeated}" twice`)
  return { ok: true, value: options, text: options.join(',') }
}

/**
 * A value of a definition of `type`, from its trimmed, non-empty text. `options` are those of
 * a `choice` (its parsed default value).
 */
export function parseValue(type: MetadataType, value: string, options: readonly string[] = []): Parsed<MetadataValue> {
  switch (type) {
    case 'varchar':
      return text(value, VARCHAR_MAX)
    case 'longvarchar':
      return text(value, LONGVARCHAR_MAX)
    case 'integer':
      return whole(value, INT32)
    case 'bigint':
      return whole(value, SAFE)
    case 'date':
      return date(value)
    case 'boolean':
      return flag(value)
    case 'choice':
      return options.includes(value) ? { ok: true, value, text: value } : fail(`must be one of: ${options.join(', ')}`)
  }
}

/**
 * A definition's `default_value` checked against its `type` (trimmed, non-empty text): for
 * `choice`, the options; otherwise a value of the type. Gives the canonical text to store.
 */
export function parseDefault(type: MetadataType, value: string): Parsed<string> {
  if (type === 'choice') {
    const options = parseOptions(value)
    return options.ok ? { ok: true, value: options.text, text: options.text } : options
  }
  if (length(value) > LONGVARCHAR_MAX) return fail(`must be at most ${LONGVARCHAR_MAX} characters`)
  const parsed = parseValue(type, value)
  return parsed.ok ? { ok: true, value: parsed.text, text: parsed.text } : parsed
}

/** The file types of a comma-separated list (each trimmed): at least one, all known; repeats dropped. */
export function parseFileTypes(list: string): Parsed<FileType[]> {
  const words = list.split(',').map((word) => word.trim())
  if (words.includes('')) return fail(`must be a comma-separated list of: ${FILE_TYPES.join(', ')}`)
  const unknown = words.find((word) => !(FILE_TYPES as readonly string[]).includes(word))
  if (unknown !== undefined) return fail(`unknown file type "${unknown}": use ${FILE_TYPES.join(', ')}`)
  const fileTypes = [...new Set(words)] as FileType[]
  return { ok: true, value: fileTypes, text: fileTypes.join(',') }
}

/** What `checkMetadataValues` needs of a definition. */
export type MetadataRule = Pick<MetadataDefinitionView, 'name' | 'type' | 'fileTypes' | 'defaultValue'>

/** The outcome of `checkMetadataValues`. */
export interface MetadataCheck {
  /** What is wrong, by request field name (`metadata[<name>]`), in the order the values came; empty when all pass. */
  errors: FieldErrors
  /**
   * The values that passed, typed, by definition name: strings (text, `YYYY-MM-DD` dates,
   * choices), numbers (integer, bigint), booleans; null for a value sent empty (clear it).
   */
  values: Record<string, MetadataValue | null>
}

/**
 * Checks the `metadata[<name>]` fields sent for a file (or a resource) of `fileType` against
 * the definitions of its platform. Names match a definition's name exactly. A value is
 * trimmed; sent empty, it is null (clear it), which is allowed even where the definition no
 * longer applies to the file type, so stale values can be removed. Failures: an unknown
 * name, a nested value, a definition that does not apply to the file type, a value that is
 * not of the definition's type, a choice outside its options. Pure: the caller turns
 * `errors` into a 412 (`invalid(errors)`) and stores `values`.
 */
export function checkMetadataValues(
  definitions: readonly MetadataRule[],
  values: Readonly<Record<string, FormValue>>,
  fileType: FileType,
): MetadataCheck {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]))
  const check: MetadataCheck = { errors: {}, values: {} }
  for (const [name, raw] of Object.entries(values)) {
    const field = `metadata[${name}]`
    const definition = byName.get(name)
    if (!definition) {
      check.errors[field] = 'no metadata definition of this name on this platform'
      continue
    }
    if (typeof raw !== 'string') {
      check.errors[field] = 'must be a single value'
      continue
    }
    const value = raw.trim()
    if (value === '') {
      check.values[name] = null
      continue
    }
    if (!definition.fileTypes.includes(fileType)) {
      check.errors[field] = `does not apply to ${fileType} files (only to: ${definition.fileTypes.join(', ')})`
      continue
    }
    const options = definition.type === 'choice' ? optionsOf(definition) : []
    const parsed = parseValue(definition.type, value, options)
    if (parsed.ok) check.values[name] = parsed.value
    else check.errors[field] = parsed.error
  }
  return check
}

/** The options of a stored `choice` definition (already canonical: trimmed, joined by `,`). */
function optionsOf(definition: MetadataRule): string[] {
  return definition.defaultValue ? definition.defaultValue.split(',') : []
}
