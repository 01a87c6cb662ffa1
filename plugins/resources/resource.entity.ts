import { EntitySchema, JsonType } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { StoredFile } from '../files/index.js'
import type { MetadataValue } from '../metadata/index.js'
import type { Stream, Visibility } from '../streams/index.js'

/** A resource: a file of a user published into a stream. */
export interface Resource {
  id: number
  /** Generated from the title at creation; never changes. */
  slug: string
  title: string
  subtitle: string
  description: string
  publishedAt: Date | null
  visibility: Visibility
  /** Playback sessions counted by the player. */
  views: number
  /** Values set on the resource, by metadata definition id; they override the file's unless protected. */
  metadata: Record<string, MetadataValue>
  file: StoredFile
  stream: Stream
  createdAt: Date
  updatedAt: Date
}

export const ResourceEntity = new EntitySchema<Resource>({
  name: 'Resource',
  tableName: 'resources',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    title: { type: 'string', length: 255 },
    subtitle: { type: 'string', length: 255 },
    description: { type: 'text' },
    publishedAt: { type: 'datetime', nullable: true },
    visibility: { type: 'string', length: 16 },
    views: { type: 'integer' },
    metadata: { type: JsonType },
    file: cascadingReference('StoredFile'),
    stream: cascadingReference('Stream'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    updatedAt: { type: 'datetime', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
  // Pages of a stream are read in id order: deep pages walk an index instead of sorting, the
  // second one for viewers, who see only visible resources.
  indexes: [{ properties: ['stream', 'id'] }, { properties: ['stream', 'visibility', 'id'] }],
})
