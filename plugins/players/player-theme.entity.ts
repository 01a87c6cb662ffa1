import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'

/** Where a theme's logo sits on the player. */
export const LOGO_POSITIONS = ['top-left', 'top-right', 'bottom-left', 'bottom-right'] as const
export type LogoPosition = (typeof LOGO_POSITIONS)[number]

/** What a theme tells the player (built by a later plugin) about its look. */
export interface ThemeSettings {
  /** CSS hex color `#rrggbb`, lowercase. */
  backgroundColor: string
  /** CSS hex color `#rrggbb`, lowercase. */
  textColor: string
  /** CSS hex color `#rrggbb` of controls and highlights, lowercase. */
  accentColor: string
  /** Absolute http(s) URL of an image shown over the video; null for none. */
  logoUrl: string | null
  logoPosition: LogoPosition
}

/** A named look of the player, belonging to a platform; widgets refer to one. */
export interface PlayerTheme extends ThemeSettings {
  id: number
  /** Generated from the name at creation; unique across the installation; never changes. */
  slug: string
  /** Free text; names may repeat on a platform. */
  name: string
  platform: Platform
  createdAt: Date
}

export const PlayerThemeEntity = new EntitySchema<PlayerTheme>({
  name: 'PlayerTheme',
  tableName: 'player_themes',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    backgroundColor: { type: 'string', length: 7 },
    textColor: { type: 'string', length: 7 },
    accentColor: { type: 'string', length: 7 },
    logoUrl: { type: 'string', length: 1024, nullable: true },
    logoPosition: { type: 'string', length: 16 },
    platform: cascadingReference('Platform'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
