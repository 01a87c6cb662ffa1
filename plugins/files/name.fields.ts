import type { FieldReader } from '../../src/kernel/index.js'
import { NAME_MAX } from './file-name.js'

const ONE_LINE = { regex: /^[^\r\n\t]*$/, message: 'must be one line (no tabs or line breaks)' }

/**
 * `name` of a directory or a file (the spec's string(255)): required on create, not
 * emptied on update, one line without control characters. Names are data, never paths:
 * `/` and `..` are fine in them. Throws 412 on any failure of the form.
 */
export function readName(v: FieldReader): string | undefined {
  const name = nameField(v)
  v.done()
  return name
}

/** `name` as `readName` checks it, leaving a failure in `v` for the caller to report with others. */
export function nameField(v: FieldReader): string | undefined {
  return v.string('name', { required: true, max: NAME_MAX, pattern: ONE_LINE }) ?? undefined
}
