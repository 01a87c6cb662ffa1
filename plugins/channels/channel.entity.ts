import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Media } from '../media/index.js'

/** A publication channel of a media: where (and whether) its resources are offered. */
export interface Channel {
  id: number
  /** Unique across the installation; made at creation, never changes. */
  slug: string
  name: string
  /** The channel type word, lowercase (`web`, `widget`, `api`, `syndication`, or any other: the set is open). */
  type: string
  /** Offline channels offer nothing. */
  isOnline: boolean
  /** Themed types only (web): the global appearance of the player pages. */
  theme: string | null
  /** Themed types only: a colour variation of the theme. */
  skin: string | null
  media: Media
  createdAt: Date
}

/** Longest name, type, theme and skin (spec: channel name and type, at most 64 characters). */
export const CHANNEL_TEXT_MAX = 64

export const ChannelEntity = new EntitySchema<Channel>({
  name: 'Channel',
  tableName: 'channels',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: CHANNEL_TEXT_MAX },
    type: { type: 'string', length: CHANNEL_TEXT_MAX },
    isOnline: { type: 'boolean' },
    theme: { type: 'string', length: CHANNEL_TEXT_MAX, nullable: true },
    skin: { type: 'string', length: CHANNEL_TEXT_MAX, nullable: true },
    media: cascadingReference('Media'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
