import type { BehaviorSettings } from './player-behavior.entity.js'
import type { ThemeSettings } from './player-theme.entity.js'

/** A theme or behavior every new platform gets. */
export interface DefaultPlayerSetting<S> {
  name: string
  settings: Readonly<S>
}

/** The look of a player whose widget names no theme (or whose theme was deleted): the Light theme. */
export const DEFAULT_THEME: Readonly<ThemeSettings> = Object.freeze({
  backgroundColor: '#ffffff',
  textColor: '#1a1a1a',
  accentColor: '#0066cc',
  logoUrl: null,
  logoPosition: 'top-right',
})

/** How a player whose widget names no behavior (or whose behavior was deleted) plays: the Default behavior. */
export const DEFAULT_BEHAVIOR: Readonly<BehaviorSettings> = Object.freeze({
  controls: true,
  autoplay: false,
  muted: false,
  loop: false,
  startTime: 0,
  subtitlesOn: false,
  subtitleLanguage: null,
})

/** The themes of a new platform, in this order. */
export const DEFAULT_THEMES: readonly DefaultPlayerSetting<ThemeSettings>[] = [
  { name: 'Light', settings: DEFAULT_THEME },
  {
    name: 'Dark',
    settings: { ...DEFAULT_THEME, backgroundColor: '#121212', textColor: '#f5f5f5', accentColor: '#4da3ff' },
  },
]

/** The behaviors of a new platform, in this order. Browsers start a video by themselves only when it is muted. */
export const DEFAULT_BEHAVIORS: readonly DefaultPlayerSetting<BehaviorSettings>[] = [
  { name: 'Default', settings: DEFAULT_BEHAVIOR },
  { name: 'Autoplay muted', settings: { ...DEFAULT_BEHAVIOR, autoplay: true, muted: true } },
  { name: 'Loop', settings: { ...DEFAULT_BEHAVIOR, loop: true } },
]
