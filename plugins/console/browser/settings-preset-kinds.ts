/**
 * Player themes and behaviors (docs/api/widgets-players.md#player-themes-and-behaviors): the same routes under the
 * platform (`/platform/<slug>/player_theme`, `/player_behavior`), the same list, create, edit and delete, gated by
 * the profile flags `<resource>.create`, `.edit`, `.delete`; only their settings differ, described here for the one
 * form that edits both.
 */

/** How a setting is edited: a color `#rrggbb`, an http(s) URL, one of the logo's corners, a flag, seconds, a code. */
export type SettingInput = 'color' | 'url' | 'position' | 'flag' | 'seconds' | 'language'

export interface PresetKind {
  /** The catalog's `settings.<kind>.*` keys. */
  kind: 'themes' | 'behaviors'
  /** The routes' segment, the element's name and the profile flags' prefix. */
  resource: 'player_theme' | 'player_behavior'
  /** The settings, in the API's order: each a field of the info answer and of PUT. */
  settings: readonly { name: SettingName; input: SettingInput }[]
}

export type SettingName =
  | 'background_color'
  | 'text_color'
  | 'accent_color'
  | 'logo_url'
  | 'logo_position'
  | 'controls'
  | 'autoplay'
  | 'muted'
  | 'loop'
  | 'start_time'
  | 'subtitles_on'
  | 'subtitle_language'

export const LOGO_POSITIONS = ['top-left', 'top-right', 'bottom-left', 'bottom-right'] as const

export const THEMES: PresetKind = {
  kind: 'themes',
  resource: 'player_theme',
  settings: [
    { name: 'background_color', input: 'color' },
    { name: 'text_color', input: 'color' },
    { name: 'accent_color', input: 'color' },
    { name: 'logo_url', input: 'url' },
    { name: 'logo_position', input: 'position' },
  ],
}

export const BEHAVIORS: PresetKind = {
  kind: 'behaviors',
  resource: 'player_behavior',
  settings: [
    { name: 'controls', input: 'flag' },
    { name: 'autoplay', input: 'flag' },
    { name: 'muted', input: 'flag' },
    { name: 'loop', input: 'flag' },
    { name: 'start_time', input: 'seconds' },
    { name: 'subtitles_on', input: 'flag' },
    { name: 'subtitle_language', input: 'language' },
  ],
}
