import { type SafeHtml, html } from '../../src/kernel/index.js'
import { languageName } from '../../src/shared/iso-codes.js'
import type { ResourceDetails, ResourceView } from '../resources/index.js'
import type { StreamView } from '../streams/index.js'
import { type PortalView, layout, streamTrail } from './portal.layout.js'
import { dateTime, durationTime, textBlock } from './portal.text.js'

function languages(details: ResourceDetails): SafeHtml | null {
  const codes = [...new Set(details.subtitles.map((s) => s.language))]
  if (codes.length === 0) return null
  return html`<dt>Subtitles</dt><dd><ul class="languages">${codes.map((code) => html`<li><span lang="${code}">${languageName(code)}</span></li>`)}</ul></dd>`
}

/**
 * A resource's page: title, subtitle, the player (the `player` plugin's public page, framed),
 * published date, duration, subtitle languages, and the description as text.
 */
export function resourcePage(
  view: PortalView,
  resource: ResourceView,
  stream: StreamView,
  details: ResourceDetails,
  playerUrl: string,
): SafeHtml {
  const meta = html`<dl class="meta">
${resource.publishedAt ? html`<dt>Published</dt><dd>${dateTime(resource.publishedAt)}</dd>\n` : null}${details.duration ? html`<dt>Duration</dt><dd>${durationTime(details.duration)}</dd>\n` : null}${languages(details)}
<dt>In</dt><dd><a href="${view.links.stream(stream.slug)}">${stream.title}</a></dd>
</dl>`
  const description = textBlock(resource.description)
  const main = html`<article aria-labelledby="resource-title">
<h1 id="resource-title">${resource.title}</h1>
${resource.subtitle ? html`<p class="lead">${resource.subtitle}</p>` : null}
<div class="stage"><div class="player"><iframe src="${playerUrl}" allow="autoplay; fullscreen; picture-in-picture" allowfullscreen title="${`Player: ${resource.title}`}"></iframe></div></div>
${meta}
${description ? html`<h2>Description</h2>\n${description}` : null}
</article>`
  const root = view.tree.ancestorsOf(stream.id)[0] ?? stream
  return layout(view, {
    title: resource.title,
    main,
    trail: [...streamTrail(view, stream, true), { label: resource.title }],
    current: { streamId: root.id },
    summary: resource.subtitle || resource.description,
  })
}
