import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'

/** What a behavior tells the player (built by a later plugin) about how it plays. */
export interface BehaviorSettings {
  /** Show the playback controls. */
  controls: boolean
  /** Start playing on load (browsers allow it only muted). */
  autoplay: boolean
  /** Start with the sound off. */
  muted: boolean
  /** Play again from the start at the end. */
  loop: boolean
  /** Where playback starts, in whole seconds from the beginning. */
  startTime: number
  /** Show subtitles from the start. */
  subtitlesOn: boolean
  /** ISO 639-1 code of the subtitles to show first; null: the player's choice. */
  subtitleLanguage: string | null
}

/** A named way of playing, belonging to a platform; widgets refer to one. */
export interface PlayerBehavior extends BehaviorSettings {
  id: number
  /** Generated from the name at creation; unique across the installation; never changes. */
  slug: string
  /** Free text; names may repeat on a platform. */
  name: string
  platform: Platform
  createdAt: Date
}

export const PlayerBehaviorEntity = new EntitySchema<PlayerBehavior>({
  name: 'PlayerBehavior',
  tableName: 'player_behaviors',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    controls: { type: 'boolean' },
    autoplay: { type: 'boolean' },
    muted: { type: 'boolean' },
    loop: { type: 'boolean' },
    startTime: { type: 'integer' },
    subtitlesOn: { type: 'boolean' },
    subtitleLanguage: { type: 'string', length: 2, nullable: true },
    platform: cascadingReference('Platform'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
