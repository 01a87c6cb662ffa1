import { describe, expect, it } from 'vitest'
import { PORTAL_STYLE, PORTAL_STYLE_FILE, PORTAL_STYLE_HASH } from '../../../plugins/portal/portal.style.js'
import { SKINS, THEMES, lookOf } from '../../../plugins/portal/portal.theme.js'

/** The stylesheet's skins, read back from its text: `.skin-<name>{--var:value;...}`. */
function skinsOf(css: string): Map<string, Record<string, string>> {
  const skins = new Map<string, Record<string, string>>()
  for (const [, name, body] of css.matchAll(/\.skin-([a-z]+)\{([^}]*)\}/g)) {
    const vars: Record<string, string> = {}
    for (const [, key, value] of body!.matchAll(/--([a-z-]+):([^;]+)/g)) vars[key!] = value!.trim()
    skins.set(name!, vars)
  }
  return skins
}

/** WCAG 2 relative luminance of a `#rrggbb` colour. */
function luminance(hex: string): number {
  expect(hex).toMatch(/^#[0-9a-f]{6}$/i)
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

/** WCAG 2 contrast ratio of two colours. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi! + 0.05) / (lo! + 0.05)
}

/** Text colour on background, as the stylesheet pairs them. */
const TEXT_PAIRS: [string, string][] = [
  ['fg', 'bg'],
  ['muted', 'bg'],
  ['link', 'bg'],
  ['fg', 'surface'],
  ['muted', 'surface'],
  ['link', 'surface'],
  ['header-fg', 'header-bg'],
  ['accent-fg', 'accent'],
]
/** Focus outlines (non-text contrast, WCAG 1.4.11: 3:1) against every background they may sit on. */
const FOCUS_ON = ['bg', 'surface', 'header-bg']

describe('the portal stylesheet', () => {
  const skins = skinsOf(PORTAL_STYLE)

  it('defines every skin, each with the same variables', () => {
    expect([...skins.keys()]).toEqual([...SKINS])
    const names = Object.keys(skins.get('light')!)
    for (const vars of skins.values()) expect(Object.keys(vars)).toEqual(names)
    // Every colour variable the rules use is one a skin defines (or a layout variable of a theme).
    const used = new Set([...PORTAL_STYLE.matchAll(/var\(--([a-z-]+)\)/g)].map((m) => m[1]!))
    for (const name of used) expect([...names, 'width', 'card'], name).toContain(name)
    for (const theme of THEMES) expect(PORTAL_STYLE).toContain(`.theme-${theme}{`)
  })

  for (const skin of SKINS) {
    it(`${skin}: text at 4.5:1 at least on its backgrounds, focus outlines at 3:1`, () => {
      const vars = skins.get(skin)!
      for (const [text, background] of TEXT_PAIRS) {
        const ratio = contrast(vars[text]!, vars[background]!)
        expect(
          ratio,
          `${skin}: ${text} ${vars[text]} on ${background} ${vars[background]} = ${ratio.toFixed(2)}`,
        ).toBeGreaterThanOrEqual(4.5)
      }
      for (const background of FOCUS_ON) {
        const ratio = contrast(vars.focus!, vars[background]!)
        expect(ratio, `${skin}: focus on ${background} = ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(3)
      }
    })
  }

  it('has visible focus outlines, a skip link that shows on focus, and its content hash in its name', () => {
    expect(PORTAL_STYLE).toContain(':focus-visible{outline:3px solid var(--focus);outline-offset:2px}')
    expect(PORTAL_STYLE).toContain('.skip-link:focus{top:.75rem}')
    expect(PORTAL_STYLE_FILE).toBe(`portal.${PORTAL_STYLE_HASH}.css`)
    expect(PORTAL_STYLE_HASH).toMatch(/^[0-9a-f]{16}$/)
  })

  it('falls back to classic and light for unknown or empty theme and skin words', () => {
    expect(lookOf({ theme: null, skin: null })).toEqual({ theme: 'classic', skin: 'light' })
    expect(lookOf({ theme: ' Cinema ', skin: 'Dark' })).toEqual({ theme: 'cinema', skin: 'dark' })
    expect(lookOf({ theme: 'neon', skin: 'purple' })).toEqual({ theme: 'classic', skin: 'light' })
    expect(lookOf({ theme: 'classic', skin: 'blue' })).toEqual({ theme: 'classic', skin: 'blue' })
  })
})
