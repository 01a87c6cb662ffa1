import { type SafeHtml, html } from '../../src/kernel/index.js'
import type { MediaView } from '../media/index.js'
import type { StreamView } from '../streams/index.js'
import type { PortalLinks } from './portal.links.js'
import type { Look } from './portal.theme.js'
import type { StreamTree } from './stream-tree.js'

/** Everything a portal page is drawn with: the media, its look, its addresses, its visible streams. */
export interface PortalView {
  media: MediaView
  look: Look
  links: PortalLinks
  tree: StreamTree
}

/** Top-level streams shown in the header's navigation; the home page lists them all. */
const NAV_STREAMS = 8

/** One step of a breadcrumb trail: a link, or the current page (no href). */
export interface Crumb {
  label: string
  href?: string
}

/** The trail from the home page through a stream's ancestors (and the stream itself, as a link). */
export function streamTrail(view: PortalView, stream: StreamView, includeStream: boolean): Crumb[] {
  const above = view.tree.ancestorsOf(stream.id).map((s) => ({ label: s.title, href: view.links.stream(s.slug) }))
  const self = includeStream ? [{ label: stream.title, href: view.links.stream(stream.slug) }] : []
  return [{ label: 'Home', href: view.links.home() }, ...above, ...self]
}

function breadcrumbs(trail: readonly Crumb[]): SafeHtml | null {
  if (trail.length === 0) return null
  const items = trail.map((crumb) =>
    crumb.href
      ? html`<li><a href="${crumb.href}">${crumb.label}</a></li>`
      : html`<li><span aria-current="page">${crumb.label}</span></li>`,
  )
  return html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol>${items}</ol></nav>`
}

/**
 * Where the visitor is, for the header's navigation: the home page or the top-level stream whose
 * section the page belongs to; `exact` when the page is that link's own page (`aria-current="page"`),
 * else the link marks the section (`aria-current="true"`).
 */
export interface NavCurrent {
  home?: boolean
  streamId?: number
  exact?: boolean
}

function siteNav(view: PortalView, current: NavCurrent): SafeHtml {
  const streams = view.tree.roots.slice(0, NAV_STREAMS)
  const here = (yes: boolean | undefined) => (yes ? html` aria-current="${current.exact ? 'page' : 'true'}"` : null)
  return html`<nav class="site-nav" aria-label="Main"><ul>
<li><a href="${view.links.home()}"${here(current.home)}>Home</a></li>
${streams.map((s) => html`<li><a href="${view.links.stream(s.slug)}"${here(current.streamId === s.id)}>${s.title}</a></li>\n`)}</ul></nav>`
}

/** What a page puts in the layout. */
export interface PageParts {
  /** The page's own title (the media's name follows it in `<title>`); undefined: the home page. */
  title?: string
  /** The content of `<main>`, starting with its `<h1>`. */
  main: SafeHtml
  trail?: readonly Crumb[]
  current?: NavCurrent
  /** Text for `<meta name="description">`. */
  summary?: string
}

/**
 * A whole page: `lang`, the look as classes of `<html>`, a skip link to the content, the
 * landmarks (header with the site's navigation, main, footer) and the content-hashed stylesheet.
 */
export function layout(view: PortalView, parts: PageParts): SafeHtml {
  const { media, look, links } = view
  const title = parts.title ? `${parts.title} · ${media.name}` : media.name
  const summary = (parts.summary ?? '').replace(/\s+/g, ' ').trim().slice(0, 300)
  return html`<!doctype html>
<html lang="en" class="theme-${look.theme} skin-${look.skin}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${summary ? html`<meta name="description" content="${summary}">\n` : null}<link rel="stylesheet" href="${links.stylesheet()}">
<link rel="icon" href="data:,">
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><div class="wrap">
<p class="site-name"><a href="${links.home()}">${media.name}</a></p>
${siteNav(view, parts.current ?? {})}
</div></header>
<main id="main" class="wrap" tabindex="-1">
${breadcrumbs(parts.trail ?? [])}
${parts.main}
</main>
<footer class="site-footer"><div class="wrap"><p>${media.name}</p></div></footer>
</body>
</html>
`
}
