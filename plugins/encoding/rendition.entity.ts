import { BigIntType, EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { StoredFile } from '../files/index.js'

/**
 * What the media pipeline made of a file, one row per deliverable: a flavor (`flavor`), the
 * HLS folder (`hls`: `storageKey` is the folder's prefix, ending with `/`), the normalized
 * image (`image`), the thumbnail (`thumbnail`), a snapshot (`snapshot`, named `0` to `9`, or
 * `custom` for an uploaded one). A run replaces the whole set in one transaction.
 */
export interface Rendition {
  id: number
  file: StoredFile
  kind: RenditionKind
  /** The ladder rung, codec or snapshot id, unique per file and kind. */
  name: string
  /** Where the bytes are (under the file's storage prefix). */
  storageKey: string
  /** Bytes stored (for `hls`, the whole folder), counted in the quotas. */
  size: number
  mimeType: string
  width: number | null
  height: number | null
  /** Seconds (video, audio). */
  duration: number | null
  /** The snapshot shown as the thumbnail (one per file at most). */
  selected: boolean
  createdAt: Date
}

/** The kinds of rendition rows. */
export const RENDITION_KINDS = ['flavor', 'hls', 'image', 'thumbnail', 'snapshot'] as const
export type RenditionKind = (typeof RENDITION_KINDS)[number]

export const RenditionEntity = new EntitySchema<Rendition>({
  name: 'Rendition',
  tableName: 'renditions',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    file: cascadingReference('StoredFile'),
    kind: { type: 'string', length: 16 },
    name: { type: 'string', length: 64 },
    storageKey: { type: 'string', length: 512 },
    size: { type: new BigIntType('number') },
    mimeType: { type: 'string', length: 127 },
    width: { type: 'integer', nullable: true },
    height: { type: 'integer', nullable: true },
    duration: { type: 'float', nullable: true },
    selected: { type: 'boolean' },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
  uniques: [{ properties: ['file', 'kind', 'name'] }],
})
