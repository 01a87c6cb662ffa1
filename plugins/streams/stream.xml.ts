import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { StreamView } from './stream.queries.js'

/** `<parent_stream href="...">slug</parent_stream>`, or an empty element at the top of the media. */
const parentXml = (links: LinkBuilder, s: StreamView): XmlNode =>
  s.parentSlug === null
    ? xml.link('parent_stream', null)
    : xml.str('parent_stream', s.parentSlug, { href: links.url('stream', s.parentSlug) })

// The spec names the subtitle `sub_title` in lists and `subtitle` elsewhere: both are emitted (API-DECISIONS).
const subtitles = (s: StreamView, first: 'sub_title' | 'subtitle'): XmlNode[] => [
  xml.str(first, s.subtitle),
  xml.str(first === 'sub_title' ? 'subtitle' : 'sub_title', s.subtitle),
]

/** A stream in a list: href, slug, title, sub_title, media, description (and its parent and visibility). */
export const streamSummaryXml = (links: LinkBuilder, s: StreamView): XmlNode =>
  xml.el('stream', { href: links.url('stream', s.slug) }, [
    xml.str('slug', s.slug),
    xml.str('title', s.title),
    ...subtitles(s, 'sub_title'),
    xml.link('media', links.url('media', s.mediaSlug)),
    xml.str('description', s.description),
    parentXml(links, s),
    xml.str('visibility', s.visibility),
  ])

/** Stream info (and the create and update answers). */
export const streamInfoXml = (links: LinkBuilder, s: StreamView): XmlNode =>
  xml.el('stream', { href: links.url('stream', s.slug) }, [
    xml.str('slug', s.slug),
    parentXml(links, s),
    xml.str('title', s.title),
    ...subtitles(s, 'subtitle'),
    xml.link('media', links.url('media', s.mediaSlug)),
    xml.str('description', s.description),
    xml.str('visibility', s.visibility),
    xml.link('resources', links.url('stream', s.slug, 'resources')),
    xml.link('accesses', links.url('stream', s.slug, 'accesses')),
  ])

export const streamListXml = (links: LinkBuilder, mediaSlug: string, items: StreamView[]): XmlNode =>
  xml.el(
    'streams',
    { href: links.url('media', mediaSlug, 'streams') },
    items.map((s) => streamSummaryXml(links, s)),
  )
