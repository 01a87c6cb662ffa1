import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { PlatformView as Platform } from './platform.queries.js'
import type { PlatformStats } from './platform.events.js'

function fields(p: Platform): XmlNode[] {
  return [
    xml.str('slug', p.slug),
    xml.str('name', p.name),
    xml.num('max_users', p.maxUsers),
    xml.num('max_space', p.maxSpace),
  ]
}

/** A platform in a list: href, slug, name, max_users, max_space. */
export function platformSummaryXml(links: LinkBuilder, p: Platform): XmlNode {
  return xml.el('platform', { href: links.url('platform', p.slug) }, fields(p))
}

/** Platform info: the list fields plus created_users, used_space and the metadata link. */
export function platformInfoXml(links: LinkBuilder, p: Platform, stats: PlatformStats): XmlNode {
  return xml.el('platform', { href: links.url('platform', p.slug) }, [
    ...fields(p),
    xml.num('created_users', stats.createdUsers),
    xml.num('used_space', stats.usedSpace),
    // The platform's own choice (empty: the installation's api.timestamps), an extension of the contract.
    xml.str('timestamps', p.timestamps ?? ''),
    xml.link('metadata', links.url('platform', p.slug, 'metadata')),
  ])
}

export function platformListXml(links: LinkBuilder, items: Platform[]): XmlNode {
  return xml.el(
    'platforms',
    { href: links.url('platforms') },
    items.map((p) => platformSummaryXml(links, p)),
  )
}
