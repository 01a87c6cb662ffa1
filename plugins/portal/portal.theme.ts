/** The portal's themes (layouts) and skins (colours), as a web channel's `theme` and `skin` name them. */

/** Layouts: `classic` (a compact list of cards), `cinema` (wide pictures, a dark stage for the player). */
export const THEMES = ['classic', 'cinema'] as const
export type Theme = (typeof THEMES)[number]

/** Colour sets, each one with every text colour at a contrast of 4.5:1 at least on its backgrounds. */
export const SKINS = ['light', 'dark', 'blue'] as const
export type Skin = (typeof SKINS)[number]

/** The look of a portal: its theme and skin, as their CSS classes. */
export interface Look {
  theme: Theme
  skin: Skin
}

const pick = <T extends string>(words: readonly T[], value: string | null, fallback: T): T => {
  const word = (value ?? '').trim().toLowerCase()
  return (words as readonly string[]).includes(word) ? (word as T) : fallback
}

/**
 * The look a web channel asks for. Theme and skin are free text set through the API: an unknown
 * or empty word falls back to `classic` and `light` rather than failing (the page still shows).
 */
export function lookOf(channel: { theme: string | null; skin: string | null }): Look {
  return { theme: pick(THEMES, channel.theme, 'classic'), skin: pick(SKINS, channel.skin, 'light') }
}
