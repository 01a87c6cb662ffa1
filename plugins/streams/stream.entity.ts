import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Media } from '../media/index.js'

/** Who sees a stream or a resource: everyone who may view it, or only holders of `view_protected`. */
export const VISIBILITIES = ['visible', 'hidden', 'draft'] as const
export type Visibility = (typeof VISIBILITIES)[number]

/** A stream: a channel of publications inside a media, possibly nested in another stream of the same media. */
export interface Stream {
  id: number
  /** Generated from the title at creation; never changes. */
  slug: string
  title: string
  subtitle: string
  description: string
  visibility: Visibility
  media: Media
  /** null: at the top of the media. */
  parent: Stream | null
  createdAt: Date
}

export const StreamEntity = new EntitySchema<Stream>({
  name: 'Stream',
  tableName: 'streams',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    title: { type: 'string', length: 255 },
    subtitle: { type: 'string', length: 255 },
    description: { type: 'text' },
    visibility: { type: 'string', length: 16 },
    media: cascadingReference('Media'),
    parent: cascadingReference('Stream', { nullable: true }),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
