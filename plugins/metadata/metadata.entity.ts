import { EntitySchema, JsonType } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'
import type { FileType, MetadataType } from './metadata.types.js'

/** A metadata field declared on a platform, whose values are set on files and resources. */
export interface MetadataDefinition {
  id: number
  /** Generated from the name at creation; never changes. */
  slug: string
  /** Unique on the platform, whatever the case. */
  name: string
  type: MetadataType
  /** The file types it applies to (a JSON array; answered as a comma-separated list). */
  fileTypes: FileType[]
  isProtected: boolean
  /** Canonical text of the default; for `choice`, the options joined by commas (then required). */
  defaultValue: string | null
  platform: Platform
  createdAt: Date
}

export const MetadataDefinitionEntity = new EntitySchema<MetadataDefinition>({
  name: 'MetadataDefinition',
  tableName: 'metadata_definitions',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    type: { type: 'string', length: 16 },
    fileTypes: { type: JsonType },
    isProtected: { type: 'boolean' },
    defaultValue: { type: 'text', nullable: true },
    platform: cascadingReference('Platform'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
  // Exact duplicates only: the service also refuses names differing in case, before inserting.
  uniques: [{ properties: ['platform', 'name'] }],
})
