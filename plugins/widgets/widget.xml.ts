import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import { playerBehaviorLinkXml, playerThemeLinkXml } from '../players/index.js'
import { embedCodes } from './widget.embed.js'
import type { WidgetView } from './widget.queries.js'
import { formatSize } from './widget.size.js'

/** The address of a widget: `/resource/<resource>/widgets/<slug>`. */
export const widgetUrl = (links: LinkBuilder, w: Pick<WidgetView, 'slug' | 'resourceSlug'>): string =>
  links.url('resource', w.resourceSlug, 'widgets', w.slug)

/** The resource's thumbnail, the widget's poster. */
const thumbnailUrl = (links: LinkBuilder, resourceSlug: string): string =>
  links.url('resource', resourceSlug, 'thumbnail', 'thumb.jpg')

function fields(links: LinkBuilder, w: WidgetView): XmlNode[] {
  return [
    xml.str('slug', w.slug),
    xml.str('name', w.name),
    xml.str('size', formatSize(w)),
    xml.str('thumbnail', thumbnailUrl(links, w.resourceSlug)),
  ]
}

/** A widget in a list: href, slug, name, size, thumbnail (no links: API-DECISIONS). */
export function widgetSummaryXml(links: LinkBuilder, w: WidgetView): XmlNode {
  return xml.el('widget', { href: widgetUrl(links, w) }, fields(links, w))
}

/**
 * Widget info (also the create and update answers): the list fields, the `player_theme`,
 * `player_behavior` and `resource` links (an empty theme or behavior element when none), and
 * the permanent embed codes in `embeds`.
 */
export function widgetInfoXml(links: LinkBuilder, w: WidgetView): XmlNode {
  const codes = embedCodes(links, w)
  return xml.el('widget', { href: widgetUrl(links, w) }, [
    ...fields(links, w),
    playerThemeLinkXml(links, w.theme),
    playerBehaviorLinkXml(links, w.behavior),
    xml.link('resource', links.url('resource', w.resourceSlug)),
    xml.el('embeds', undefined, [xml.str('iframe', codes.iframe), xml.str('javascript', codes.javascript)]),
  ])
}

/** `GET /resource/<slug>/widgets`: `widgets` of `widget` entries. */
export function widgetListXml(links: LinkBuilder, resourceSlug: string, items: WidgetView[]): XmlNode {
  return xml.el(
    'widgets',
    { href: links.url('resource', resourceSlug, 'widgets') },
    items.map((w) => widgetSummaryXml(links, w)),
  )
}
