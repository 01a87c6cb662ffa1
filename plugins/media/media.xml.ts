import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { MediaView } from './media.queries.js'

// The spec names the host `domain` in lists and `domain_name` elsewhere: both are emitted (API-DECISIONS).
const fields = (m: MediaView, domainFirst: 'domain' | 'domain_name'): XmlNode[] => [
  xml.str('slug', m.slug),
  xml.str('name', m.name),
  xml.str(domainFirst, m.domain),
  xml.str(domainFirst === 'domain' ? 'domain_name' : 'domain', m.domain),
  xml.str('description', m.description),
  xml.str('contact_email', m.contactEmail),
  xml.num('max_streams', m.maxStreams),
]

/** A media in a list: href, slug, name, domain, description, contact_email, max_streams. */
export const mediaSummaryXml = (links: LinkBuilder, m: MediaView): XmlNode =>
  xml.el('media', { href: links.url('media', m.slug) }, fields(m, 'domain'))

/** Media info (and the create and update answers): the fields and the platform, streams, channels and accesses links. */
export const mediaInfoXml = (links: LinkBuilder, m: MediaView): XmlNode =>
  xml.el('media', { href: links.url('media', m.slug) }, [
    ...fields(m, 'domain_name'),
    xml.link('platform', links.url('platform', m.platformSlug)),
    xml.link('streams', links.url('media', m.slug, 'streams')),
    xml.link('channels', links.url('media', m.slug, 'channels')),
    xml.link('accesses', links.url('media', m.slug, 'accesses')),
  ])

export const mediaListXml = (links: LinkBuilder, platformSlug: string, items: MediaView[]): XmlNode =>
  xml.el(
    'medias',
    { href: links.url('platform', platformSlug, 'medias') },
    items.map((m) => mediaSummaryXml(links, m)),
  )
