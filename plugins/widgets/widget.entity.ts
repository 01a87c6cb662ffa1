import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { PlayerBehavior, PlayerTheme } from '../players/index.js'
import type { Resource } from '../resources/index.js'

/** An embeddable player of a resource: its size, and optionally a theme and a behavior of the resource's platform. */
export interface Widget {
  id: number
  /** Generated from the name at creation; unique across the installation; never changes. */
  slug: string
  name: string
  /** Pixels, 1 to 7680. */
  width: number
  /** Pixels, 1 to 7680. */
  height: number
  /** Deleting the resource deletes its widgets. */
  resource: Resource
  /** null: the player's defaults; becomes null when the theme is deleted. */
  playerTheme: PlayerTheme | null
  /** null: the player's defaults; becomes null when the behavior is deleted. */
  playerBehavior: PlayerBehavior | null
  createdAt: Date
}

export const WidgetEntity = new EntitySchema<Widget>({
  name: 'Widget',
  tableName: 'widgets',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    width: { type: 'integer' },
    height: { type: 'integer' },
    resource: cascadingReference('Resource'),
    playerTheme: cascadingReference('PlayerTheme', { nullable: true, onDelete: 'set null' }),
    playerBehavior: cascadingReference('PlayerBehavior', { nullable: true, onDelete: 'set null' }),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
