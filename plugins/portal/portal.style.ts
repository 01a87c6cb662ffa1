import { createHash } from 'node:crypto'
import { SKINS, type Skin } from './portal.theme.js'

/**
 * The portal's one stylesheet, kept as a TypeScript string (the build copies no other file):
 * every theme and skin, chosen by the classes of `<html>` (`theme-<name> skin-<name>`). Served
 * under a content hash with an immutable cache, so a page costs one stylesheet fetch per site.
 */

/** The colours of a skin, written as CSS variables (`--bg`, `--fg`, ...). */
export interface SkinColors {
  /** Page background and body text. */
  bg: string
  fg: string
  /** Secondary text (durations, dates, breadcrumbs), on `bg` and on `surface`. */
  muted: string
  /** Cards and panels. */
  surface: string
  /** Borders and thumbnail placeholders (decoration only). */
  border: string
  /** Links, on `bg` and on `surface`. */
  link: string
  /** The skip link and the current page marker: `accentFg` text on `accent`. */
  accent: string
  accentFg: string
  /** The site header. */
  headerBg: string
  headerFg: string
  /** Focus outlines (non-text: 3:1 against every background). */
  focus: string
}

/** The skins. Their text pairs are checked at 4.5:1 by test/plugins/portal/portal-style.test.ts. */
export const SKIN_COLORS: Readonly<Record<Skin, SkinColors>> = {
  light: {
    bg: '#ffffff',
    fg: '#1a1d23',
    muted: '#4b5563',
    surface: '#f3f4f6',
    border: '#d1d5db',
    link: '#1d4ed8',
    accent: '#1d4ed8',
    accentFg: '#ffffff',
    headerBg: '#f3f4f6',
    headerFg: '#111827',
    focus: '#b45309',
  },
  dark: {
    bg: '#121417',
    fg: '#eceef2',
    muted: '#b3b9c5',
    surface: '#1e2228',
    border: '#3a404a',
    link: '#8ab4ff',
    accent: '#8ab4ff',
    accentFg: '#0b0d10',
    headerBg: '#000000',
    headerFg: '#eceef2',
    focus: '#ffd166',
  },
  blue: {
    bg: '#0b2545',
    fg: '#f1f5fb',
    muted: '#c2d1e8',
    surface: '#13315c',
    border: '#2d4f80',
    link: '#ffd37a',
    accent: '#ffd37a',
    accentFg: '#0b2545',
    headerBg: '#061a33',
    headerFg: '#f1f5fb',
    focus: '#ffd37a',
  },
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (ch) => `-${ch.toLowerCase()}`)

const skinRule = (skin: Skin): string => {
  const colors = SKIN_COLORS[skin]
  const scheme = skin === 'light' ? 'light' : 'dark'
  const vars = Object.entries(colors).map(([name, value]) => `--${kebab(name)}:${value}`)
  return `.skin-${skin}{${vars.join(';')};color-scheme:${scheme}}`
}

const BASE = `
*,*::before,*::after{box-sizing:border-box}
html{background:var(--bg);color:var(--fg)}
body{margin:0;font:1rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--link);text-underline-offset:.15em}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
main:focus{outline:none}
img{max-width:100%}
h1,h2,h3,h4,h5,h6{line-height:1.25;margin:1.5rem 0 .75rem}
h1{font-size:2rem;margin-top:.5rem}
h2{font-size:1.5rem}
h3{font-size:1.25rem}
h4,h5,h6{font-size:1.1rem}
.visually-hidden{position:absolute!important;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.skip-link{position:absolute;left:1rem;top:-10rem;z-index:10;padding:.5rem 1rem;background:var(--accent);color:var(--accent-fg);font-weight:600;border-radius:4px}
.skip-link:focus{top:.75rem}
.wrap{max-width:var(--width);margin:0 auto;padding:0 1rem}
.site-header{background:var(--header-bg);color:var(--header-fg);border-bottom:1px solid var(--border)}
.site-header .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 2rem;padding-top:.75rem;padding-bottom:.75rem}
.site-header a{color:var(--header-fg)}
.site-name{margin:0;font-size:1.25rem;font-weight:700}
.site-name a{text-decoration:none}
.site-name a:hover{text-decoration:underline}
.site-nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;margin:0;padding:0}
.site-nav a[aria-current]{text-decoration-thickness:3px}
main{display:block;padding-top:1rem;padding-bottom:2rem}
.breadcrumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem .5rem;margin:0;padding:0;color:var(--muted);font-size:.95rem}
.breadcrumbs li+li::before{content:"\\203A";margin-right:.5rem}
.lead{font-size:1.15rem;color:var(--muted);margin-top:-.25rem}
.text p{margin:0 0 1em;max-width:48rem;overflow-wrap:anywhere}
.stream{margin:2rem 0}
.stream .stream{margin:1.5rem 0 1.5rem .5rem;padding-left:1rem;border-left:3px solid var(--border)}
.stream-head h2,.stream-head h3,.stream-head h4,.stream-head h5,.stream-head h6{margin-bottom:.25rem}
.stream-head p{margin:0 0 .75rem;color:var(--muted)}
.cards{list-style:none;margin:0;padding:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(var(--card),1fr))}
.card a{display:block;height:100%;text-decoration:none;color:var(--fg);background:var(--surface);border:1px solid var(--border);border-radius:6px;overflow:hidden}
.card a:hover .card-title{text-decoration:underline}
.thumb{display:block;width:100%;height:auto;aspect-ratio:16/9;object-fit:cover;background:var(--border)}
.card-body{display:block;padding:.5rem .75rem .75rem}
.card-title{display:block;font-weight:600;color:var(--link);overflow-wrap:anywhere}
.duration{display:block;color:var(--muted);font-size:.9rem}
.more{margin:.75rem 0 0}
.empty{color:var(--muted)}
.sub-streams{margin:.5rem 0 1.5rem;padding-left:1.25rem}
.sub-streams ul{padding-left:1.25rem}
.pager{margin:2rem 0}
.pager ul{list-style:none;display:flex;flex-wrap:wrap;align-items:center;gap:1rem;margin:0;padding:0}
.pager [aria-current]{color:var(--muted)}
.stage{margin:1rem 0}
.player{position:relative;width:100%;aspect-ratio:16/9;background:#000}
.player iframe{position:absolute;inset:0;width:100%;height:100%;border:0}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1.5rem;margin:1rem 0}
.meta dt{color:var(--muted)}
.meta dd{margin:0}
.languages{list-style:none;display:flex;flex-wrap:wrap;gap:0 1rem;margin:0;padding:0}
.site-footer{border-top:1px solid var(--border);color:var(--muted);font-size:.95rem}
.site-footer .wrap{padding-top:1rem;padding-bottom:1.5rem}
.site-footer p{margin:0}
@media (prefers-reduced-motion:reduce){*{scroll-behavior:auto!important;transition:none!important}}
`

const THEMES = `
.theme-classic{--width:64rem;--card:12rem}
.theme-cinema{--width:90rem;--card:18rem}
.theme-cinema body{font-size:1.05rem}
.theme-cinema .site-header .wrap{padding-top:1.25rem;padding-bottom:1.25rem}
.theme-cinema .site-name{font-size:1.75rem;letter-spacing:.02em}
.theme-cinema h1{font-size:2.5rem}
.theme-cinema .card a{border-radius:10px}
.theme-cinema .stage{background:var(--header-bg);margin:1rem -1rem;padding:1.5rem 1rem}
.theme-cinema .player{max-width:72rem;margin:0 auto;box-shadow:0 8px 30px rgb(0 0 0 / .45)}
`

/** The stylesheet's text. */
export const PORTAL_STYLE = [...SKINS.map(skinRule), BASE.trim(), THEMES.trim()].join('\n') + '\n'

/** The content hash in the stylesheet's URL: a new stylesheet gets a new URL, so it may be cached forever. */
export const PORTAL_STYLE_HASH = createHash('sha256').update(PORTAL_STYLE).digest('hex').slice(0, 16)

/** The stylesheet's file name, under `<portal>/assets/`. */
export const PORTAL_STYLE_FILE = `portal.${PORTAL_STYLE_HASH}.css`
