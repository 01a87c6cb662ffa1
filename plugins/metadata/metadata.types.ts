/** The value types of a metadata definition (spec, Metadata definition). */
export const METADATA_TYPES = ['varchar', 'longvarchar', 'integer', 'bigint', 'date', 'boolean', 'choice'] as const
export type MetadataType = (typeof METADATA_TYPES)[number]

/** The file types a definition may apply to (API-DECISIONS: a file's `type`). */
export const FILE_TYPES = ['video', 'audio', 'image', 'document', 'other'] as const
export type FileType = (typeof FILE_TYPES)[number]

/** A definition as the read endpoints and the file store see it (no ORM objects). */
export interface MetadataDefinitionView {
  id: number
  /** Generated from the name at creation; never changes. */
  slug: string
  /** Unique on the platform, whatever the case; names the request field `metadata[<name>]`. */
  name: string
  type: MetadataType
  /** The file types it applies to, at least one, in the order they were sent. */
  fileTypes: FileType[]
  /** When true, the value set on a file cannot be overridden on a resource published from it. */
  isProtected: boolean
  /** The default value in its canonical text form; for `choice`, the options joined by commas. */
  defaultValue: string | null
  platformId: number
  platformSlug: string
}

/** A checked metadata value: text, a date (`YYYY-MM-DD`) or a choice as a string; numbers; flags. */
export type MetadataValue = string | number | boolean
