import type { Reader } from '../../src/kernel/index.js'
import {
  type BehaviorSettings,
  DEFAULT_BEHAVIOR,
  DEFAULT_THEME,
  LOGO_POSITIONS,
  type ThemeSettings,
  playerBehaviorQueries,
  playerThemeQueries,
} from '../players/index.js'

/** How one player page looks and plays. */
export interface PlayerSettings {
  theme: ThemeSettings
  behavior: BehaviorSettings
}

/** Which theme and behavior a page uses: by id (a widget's) or by slug (`?theme=`), undefined or null for the defaults. */
export interface PlayerChoice {
  theme?: { id: number } | { slug: string } | null
  behavior?: { id: number } | { slug: string } | null
}

const COLOR = /^#[0-9a-f]{6}$/i

/**
 * The theme as the page may use it: colors that are `#rrggbb` (they go into CSS), a logo URL
 * that is http(s) (it goes into `src` and the CSP), a known position. The players plugin
 * checks these on input; checking again here keeps a bad row from becoming markup.
 */
function safeTheme(theme: ThemeSettings): ThemeSettings {
  const color = (value: string, fallback: string) => (COLOR.test(value) ? value.toLowerCase() : fallback)
  let logoUrl: string | null = null
  if (theme.logoUrl) {
    try {
      const url = new URL(theme.logoUrl)
      if (url.protocol === 'http:' || url.protocol === 'https:') logoUrl = url.href
    } catch {
      logoUrl = null
    }
  }
  return {
    backgroundColor: color(theme.backgroundColor, DEFAULT_THEME.backgroundColor),
    textColor: color(theme.textColor, DEFAULT_THEME.textColor),
    accentColor: color(theme.accentColor, DEFAULT_THEME.accentColor),
    logoUrl,
    logoPosition: LOGO_POSITIONS.includes(theme.logoPosition) ? theme.logoPosition : DEFAULT_THEME.logoPosition,
  }
}

function safeBehavior(behavior: BehaviorSettings): BehaviorSettings {
  const start = Number(behavior.startTime)
  return {
    controls: Boolean(behavior.controls),
    // Browsers start playback by themselves only muted: autoplay always is.
    autoplay: Boolean(behavior.autoplay),
    muted: Boolean(behavior.muted) || Boolean(behavior.autoplay),
    loop: Boolean(behavior.loop),
    startTime: Number.isFinite(start) && start > 0 ? Math.floor(start) : 0,
    subtitlesOn: Boolean(behavior.subtitlesOn),
    subtitleLanguage: behavior.subtitleLanguage,
  }
}

async function lookUp<S extends object>(
  queries: {
    byId(reader: Reader, id: number): Promise<({ platformId: number } & S) | undefined>
    bySlug(reader: Reader, slug: string): Promise<({ platformId: number } & S) | undefined>
  },
  reader: Reader,
  choice: { id: number } | { slug: string } | null | undefined,
  platformId: number,
): Promise<S | undefined> {
  if (!choice) return undefined
  const found = 'id' in choice ? await queries.byId(reader, choice.id) : await queries.bySlug(reader, choice.slug)
  // Another platform's theme is not this resource's to use: the defaults, as for an unknown slug.
  return found && found.platformId === platformId ? found : undefined
}

/**
 * The settings of a page for a resource of `platformId`: the chosen theme and behavior when
 * they exist on that platform, otherwise the defaults (the Light theme, the Default behavior).
 */
export async function playerSettings(
  reader: Reader,
  platformId: number,
  choice: PlayerChoice,
): Promise<PlayerSettings> {
  const [theme, behavior] = await Promise.all([
    lookUp<ThemeSettings>(playerThemeQueries, reader, choice.theme, platformId),
    lookUp<BehaviorSettings>(playerBehaviorQueries, reader, choice.behavior, platformId),
  ])
  return { theme: safeTheme(theme ?? DEFAULT_THEME), behavior: safeBehavior(behavior ?? DEFAULT_BEHAVIOR) }
}
