import type { FieldReader } from '../../src/kernel/index.js'
import { METADATA_TYPES, type FileType, type MetadataDefinitionView, type MetadataType } from './metadata.types.js'
import { LONGVARCHAR_MAX, parseDefault, parseFileTypes } from './metadata.values.js'

/** The fields of a create (all but `default_value` set) or of a partial update (what was sent). */
export interface MetadataChanges {
  name?: string
  type?: MetadataType
  fileTypes?: FileType[]
  isProtected?: boolean
  /** Canonical text; null to clear; undefined when unchanged. */
  defaultValue?: string | null
}

/** What a definition is now, for the rules of an update. */
type Current = Pick<MetadataDefinitionView, 'type' | 'defaultValue'>

/**
 * The default value after a create or an update, checked against the type it will have:
 * required (the options) for `choice`, a value of the type otherwise. A failure is reported
 * on `default_value` when it was sent, else on `type`, whose change would break the default
 * kept. `sent` is the trimmed text sent (null: sent empty; undefined: not sent).
 */
export function settleDefault(
  current: Current | undefined,
  type: MetadataType | undefined,
  sent: string | null | undefined,
): { value: string | null | undefined } | { field: 'type' | 'default_value'; error: string } {
  if (current && type === undefined && sent === undefined) return { value: undefined }
  const effective = type ?? current?.type
  if (!effective) return { value: undefined }
  const text = sent !== undefined ? sent : (current?.defaultValue ?? null)
  const kept = current !== undefined && sent === undefined
  if (text === null) {
    if (effective !== 'choice') return { value: null }
    return kept
      ? {
          field: 'type',
          error: 'cannot become choice without options: send them in default_value, separated by commas',
        }
      : { field: 'default_value', error: 'is required for the choice type: list the options, separated by commas' }
  }
  const parsed = parseDefault(effective, text)
  if (parsed.ok) return { value: parsed.text }
  return kept
    ? {
        field: 'type',
        error: `does not fit the current default_value "${text}", which ${parsed.error}; send a new default_value too`,
      }
    : { field: 'default_value', error: parsed.error }
}

/**
 * Reads and checks the fields of `POST /platform/<slug>/metadata` (no `current`) or of
 * `PUT /metadata/<slug>` (`current`: the definition now), collecting every failure for one
 * 412. `username`, sent by the spec's create example, is ignored like any unknown field.
 */
export function readMetadataFields(v: FieldReader, current?: Current): MetadataChanges {
  const changes: MetadataChanges = {}
  const name = v.string('name', { required: true, max: 255 })
  // Values are sent as metadata[<name>]: brackets in a name would make its field unaddressable.
  if (name && /[[\]]/.test(name)) v.fail('name', 'must not contain [ or ]: values are sent as metadata[<name>]')
  else if (name) changes.name = name
  changes.type = v.oneOf('type', METADATA_TYPES, { required: true }) ?? undefined
  const fileTypes = v.string('file_type', { required: true })
  if (fileTypes) {
    const parsed = parseFileTypes(fileTypes)
    if (parsed.ok) changes.fileTypes = parsed.value
    else v.fail('file_type', parsed.error)
  }
  const isProtected = v.boolean('is_protected')
  // Sent empty: there is nothing to clear a flag to but its default, so say what is expected.
  if (isProtected === null) v.fail('is_protected', 'must be 0 or 1')
  else if (isProtected !== undefined) changes.isProtected = isProtected
  const sent = v.string('default_value', { max: LONGVARCHAR_MAX })
  // Only a valid type and a well-formed default can be checked against each other.
  if (!('type' in v.errors) && !('default_value' in v.errors)) {
    const settled = settleDefault(current, changes.type, sent)
    if ('error' in settled) v.fail(settled.field, settled.error)
    else changes.defaultValue = settled.value
  }
  v.done()
  if (!current && changes.isProtected === undefined) changes.isProtected = false
  return changes
}
