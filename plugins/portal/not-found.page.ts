import { type SafeHtml, html } from '../../src/kernel/index.js'
import { type PortalView, layout } from './portal.layout.js'

/**
 * The 404 page of an open portal (an unknown, hidden or draft stream or resource, one of
 * another media, a page past the end), in the portal's look, with a way back home. It says
 * the same for all of them: hidden content is not revealed.
 */
export function notFoundPage(view: PortalView, message: string): SafeHtml {
  const main = html`<h1>Not found</h1>
<p>${message}</p>
<p><a href="${view.links.home()}">Back to the home page of ${view.media.name}</a></p>`
  return layout(view, { title: 'Not found', main })
}
