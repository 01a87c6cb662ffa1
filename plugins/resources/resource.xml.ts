import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import { metadataValuesXml } from '../metadata/index.js'
import type { ResourceDetails } from './resource.details.js'
import type { ResourceView } from './resource.queries.js'

/** The elements lists and info share, in the order of the real answers (fixtures/real-responses). */
function fields(links: LinkBuilder, r: ResourceView, d: ResourceDetails, subtitleFirst: 'sub_title' | 'subtitle') {
  return [
    xml.str('slug', r.slug),
    xml.str('title', r.title),
    // The spec names it `sub_title` in lists and `subtitle` elsewhere; the real answers show `sub_title`: both.
    xml.str(subtitleFirst, r.subtitle),
    xml.str(subtitleFirst === 'sub_title' ? 'subtitle' : 'sub_title', r.subtitle),
    xml.str('description', r.description),
    xml.date('published_at', r.publishedAt),
    xml.str('visibility', r.visibility),
    xml.num('duration', d.duration),
    xml.num('views', r.views),
    xml.str('thumbnail', d.thumbnail),
    xml.link('file', links.url('file', r.fileSlug)),
    xml.link('stream', links.url('stream', r.streamSlug)),
    metadataValuesXml(d.metadata, d.definitions),
    xml.el(
      'subtitles',
      undefined,
      d.subtitles.map((s) => xml.el('subtitle', { language: s.language, href: s.href })),
    ),
    xml.el(
      'flavors',
      undefined,
      d.flavors.map((f) => xml.str('flavor', f.url, { name: f.name })),
    ),
  ]
}

/** Resource info (and the create and update answers): everything of the spec. */
export const resourceInfoXml = (links: LinkBuilder, r: ResourceView, d: ResourceDetails): XmlNode =>
  xml.el('resource', { href: links.url('resource', r.slug) }, [
    ...fields(links, r, d, 'subtitle'),
    xml.link('accesses', links.url('resource', r.slug, 'accesses')),
    xml.el(
      'players',
      undefined,
      d.players.map((p) => xml.str('player', p.url, { name: p.name })),
    ),
    xml.el(
      'widgets',
      { href: links.url('resource', r.slug, 'widgets') },
      d.widgets.map((w) => xml.str('widget', w.code, { name: w.name })),
    ),
  ])

/** A resource in a list: what the real answers show (flavors, subtitles, metadata and the file and stream links). */
export const resourceSummaryXml = (links: LinkBuilder, r: ResourceView, d: ResourceDetails): XmlNode =>
  xml.el('resource', { href: links.url('resource', r.slug) }, fields(links, r, d, 'sub_title'))

export const resourceListXml = (
  links: LinkBuilder,
  streamSlug: string,
  items: readonly ResourceView[],
  details: ReadonlyMap<number, ResourceDetails>,
): XmlNode =>
  xml.el(
    'resources',
    { href: links.url('stream', streamSlug, 'resources') },
    items.map((r) => resourceSummaryXml(links, r, details.get(r.id)!)),
  )
