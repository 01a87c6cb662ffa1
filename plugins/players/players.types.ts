import type { EntitySchema } from '@mikro-orm/core'
import type { FieldReader, Reader, XmlNode } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'
import type { DefaultPlayerSetting } from './player.defaults.js'

/** The two families of player settings: the element name, the path segment and the profile flag model. */
export type PlayerKind = 'player_theme' | 'player_behavior'

/** A theme or behavior as the answers and other plugins see it (no ORM objects): identity, then settings. */
export type PlayerView<S> = {
  id: number
  /** Generated from the name at creation; unique across the installation; never changes. */
  slug: string
  name: string
  platformId: number
  platformSlug: string
} & S

/** A stored theme or behavior (the entity's shape). */
export type PlayerRecord<S> = { id: number; slug: string; name: string; platform: Platform; createdAt: Date } & S

/** Prepared reads of one family (committed data). */
export interface PlayerQueries<S> {
  bySlug(reader: Reader, slug: string): Promise<PlayerView<S> | undefined>
  byId(reader: Reader, id: number): Promise<PlayerView<S> | undefined>
  /** How many the platform has. */
  count(reader: Reader, platformId: number): Promise<number>
  /** One page of the platform's, oldest first. */
  page(reader: Reader, platformId: number, offset: number, limit: number): Promise<PlayerView<S>[]>
}

/**
 * What differs between themes and behaviors: their names, table, settings and defaults. The
 * routes, lookups, service, seeds and XML are written once against this description.
 */
export interface PlayerFamily<S extends object> {
  kind: PlayerKind
  /** The list element: `player_themes`. */
  plural: string
  /** The path parameter naming one: `theme` in `/platform/<platform>/player_theme/<theme>`. */
  param: string
  /** How messages name one: `player theme`. */
  label: string
  entity: EntitySchema<PlayerRecord<S>>
  queries: PlayerQueries<S>
  /**
   * Reads and checks the settings of a create (absent: the default) or of a partial update
   * (absent: unchanged). Only the settings sent are in the result; failures go to `v`.
   */
  readSettings(v: FieldReader): Partial<S>
  /** The settings' elements in an info answer, in the documented order. */
  settingsXml(settings: S): XmlNode[]
  /** The settings of one created without them. */
  defaults: Readonly<S>
  /** What every new platform gets, in this order. */
  seeds: readonly DefaultPlayerSetting<S>[]
}
