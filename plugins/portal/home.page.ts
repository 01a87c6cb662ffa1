import { type SafeHtml, html } from '../../src/kernel/index.js'
import type { StreamView } from '../streams/index.js'
import { type PortalView, layout } from './portal.layout.js'
import { pager } from './portal.paging.js'
import { textBlock } from './portal.text.js'
import { type CardItem, cardList } from './resource-card.view.js'

/** A stream as the home page shows it: its latest resources, and its sub-streams nested below it. */
export interface HomeStream {
  stream: StreamView
  latest: CardItem[]
  /** How many visible resources it holds in all. */
  total: number
  children: HomeStream[]
}

/** Headings follow the nesting (h2 at the top), down to h6 at most. */
const headingOf = (depth: number): string => `h${Math.min(2 + depth, 6)}`

function streamSection(view: PortalView, item: HomeStream, depth: number): SafeHtml {
  const { stream, latest, total } = item
  const id = `stream-${stream.slug}`
  const tag = headingOf(depth)
  const href = view.links.stream(stream.slug)
  const more =
    total > latest.length ? html`<p class="more"><a href="${href}">All ${total} in ${stream.title}</a></p>` : null
  const empty = latest.length === 0 ? html`<p class="empty">Nothing published here yet.</p>` : null
  return html`<section class="stream" aria-labelledby="${id}">
<div class="stream-head"><${tag} id="${id}"><a href="${href}">${stream.title}</a></${tag}>${stream.subtitle ? html`<p>${stream.subtitle}</p>` : null}</div>
${cardList(latest, (slug) => view.links.resource(slug))}${empty}${more}
${item.children.map((child) => streamSection(view, child, depth + 1))}</section>
`
}

/**
 * The home page: the media's name and description, then its visible streams (top-level
 * streams paged, each with its sub-streams), each with its latest visible resources.
 */
export function homePage(view: PortalView, streams: readonly HomeStream[], page: number, pages: number): SafeHtml {
  const { media } = view
  const main = html`<h1>${media.name}</h1>
${textBlock(media.description)}
${streams.length === 0 ? html`<p class="empty">Nothing published yet.</p>` : null}
${streams.map((item) => streamSection(view, item, 0))}
${pager(page, pages, (n) => view.links.home(n), 'Pages of streams')}`
  return layout(view, {
    title: page > 1 ? `Page ${page}` : undefined,
    main,
    current: { home: true, exact: page === 1 },
    summary: media.description,
  })
}
