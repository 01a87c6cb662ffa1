import { type SafeHtml, html } from '../../src/kernel/index.js'
import type { StreamView } from '../streams/index.js'
import { type PortalView, layout, streamTrail } from './portal.layout.js'
import { pager } from './portal.paging.js'
import { textBlock } from './portal.text.js'
import { type CardItem, cardList } from './resource-card.view.js'

function subStreamList(view: PortalView, streams: readonly StreamView[]): SafeHtml | null {
  if (streams.length === 0) return null
  return html`<ul>${streams.map((s) => html`<li><a href="${view.links.stream(s.slug)}">${s.title}</a>${subStreamList(view, view.tree.childrenOf(s.id))}</li>`)}</ul>`
}

/** One page of a stream's resources. */
export interface StreamPageItems {
  items: CardItem[]
  page: number
  pages: number
}

/** A stream's page: its title, subtitle and description, its visible sub-streams, its visible resources (paged, newest first). */
export function streamPage(view: PortalView, stream: StreamView, list: StreamPageItems): SafeHtml {
  const children = view.tree.childrenOf(stream.id)
  const subStreams = children.length
    ? html`<section aria-labelledby="sub-streams"><h2 id="sub-streams">Sub-streams</h2>
<div class="sub-streams">${subStreamList(view, children)}</div></section>`
    : null
  const cards = cardList(list.items, (slug) => view.links.resource(slug))
  const main = html`<h1>${stream.title}</h1>
${stream.subtitle ? html`<p class="lead">${stream.subtitle}</p>` : null}
${textBlock(stream.description)}
${subStreams}
<section aria-labelledby="publications"><h2 id="publications">Publications</h2>
${cards ?? html`<p class="empty">Nothing published here yet.</p>`}
${pager(list.page, list.pages, (n) => view.links.stream(stream.slug, n), 'Pages of publications')}
</section>`
  const root = view.tree.ancestorsOf(stream.id)[0] ?? stream
  return layout(view, {
    title: list.page > 1 ? `${stream.title} (page ${list.page})` : stream.title,
    main,
    trail: [...streamTrail(view, stream, false), { label: stream.title }],
    current: { streamId: root.id, exact: root.id === stream.id && list.page === 1 },
    summary: stream.subtitle || stream.description,
  })
}
