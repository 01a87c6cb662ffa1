import { xml } from '../../src/kernel/index.js'
import { DEFAULT_THEME, DEFAULT_THEMES } from './player.defaults.js'
import { playerQueries, textOrNull } from './player.queries.js'
import { type LogoPosition, PlayerThemeEntity, type ThemeSettings } from './player-theme.entity.js'
import { readThemeSettings } from './player-theme.fields.js'
import type { PlayerFamily, PlayerView } from './players.types.js'

/** A player theme as the reads give it: `{ id, slug, name, platformId, platformSlug, ...ThemeSettings }`. */
export type PlayerThemeView = PlayerView<ThemeSettings>

/** Prepared reads of player themes (committed data): plain views, settings in camelCase. */
export const playerThemeQueries = playerQueries<ThemeSettings>(
  'player_themes',
  't.background_color, t.text_color, t.accent_color, t.logo_url, t.logo_position',
  (row) => ({
    backgroundColor: String(row.background_color),
    textColor: String(row.text_color),
    accentColor: String(row.accent_color),
    logoUrl: textOrNull(row.logo_url),
    logoPosition: String(row.logo_position) as LogoPosition,
  }),
)

/** Player themes: the look of the player. */
export const THEMES: PlayerFamily<ThemeSettings> = {
  kind: 'player_theme',
  plural: 'player_themes',
  param: 'theme',
  label: 'player theme',
  entity: PlayerThemeEntity,
  queries: playerThemeQueries,
  readSettings: readThemeSettings,
  settingsXml: (s) => [
    xml.str('background_color', s.backgroundColor),
    xml.str('text_color', s.textColor),
    xml.str('accent_color', s.accentColor),
    xml.str('logo_url', s.logoUrl),
    xml.str('logo_position', s.logoPosition),
  ],
  defaults: DEFAULT_THEME,
  seeds: DEFAULT_THEMES,
}
