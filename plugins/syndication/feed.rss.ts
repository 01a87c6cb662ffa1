import { type XmlNode, escapeHtml, renderXml } from '../../src/kernel/index.js'
import type { FeedItem, FeedMedia } from './feed.items.js'

/** The namespaces of a feed: Atom (its own address), Media RSS (flavors, thumbnail, subtitles), iTunes (podcast apps). */
export const FEED_NAMESPACES = {
  atom: 'http://www.w3.org/2005/Atom',
  media: 'http://search.yahoo.com/mrss/',
  itunes: 'http://www.itunes.com/dtds/podcast-1.0.dtd',
} as const

/** What a feed shows of its media, and its items. */
export interface FeedDocument {
  /** The media's name. */
  title: string
  /** The media's site. */
  link: string
  /** Plain text; the title when empty. */
  description: string
  /** The feed's own address (`atom:link rel="self"`). */
  self: string
  lastBuild: Date
  /** Minutes a reader may keep the feed before fetching it again. */
  ttlMinutes: number
  items: FeedItem[]
}

type Attrs = Record<string, string | number>

// Text nodes, not CDATA: every value is escaped (`<`, `&`, `]]>` included) and readers of every age parse it.
const text = (name: string, value: string | number, attrs?: Attrs): XmlNode => ({ name, attrs, text: value })
const empty = (name: string, attrs: Attrs): XmlNode => ({ name, attrs })

/** Only the attributes with a value (width, height, sizes are unknown for some flavors). */
function defined(attrs: Record<string, string | number | null | undefined>): Attrs {
  const out: Attrs = {}
  for (const [key, value] of Object.entries(attrs)) if (value != null) out[key] = value
  return out
}

/** RFC 822 dates, as RSS 2.0 wants them (`Tue, 09 Dec 2025 10:00:00 GMT`). */
const rfc822 = (date: Date): string => date.toUTCString()

/**
 * Descriptions are read as HTML by feed readers and podcast apps (RSS 2.0 allows entity-encoded
 * HTML there): the plain text is escaped as HTML first, so `<b>` shows as text, and its line
 * breaks kept.
 */
const htmlOf = (plain: string): string => escapeHtml(plain).replace(/\r?\n/g, '<br>\n')

/** Whole seconds (iTunes and Media RSS durations); at least 1 for a file that plays at all. */
const seconds = (duration: number | null): number | null =>
  duration == null || duration <= 0 ? null : Math.max(1, Math.round(duration))

function mediaContent(m: FeedMedia): XmlNode {
  return empty(
    'media:content',
    defined({
      url: m.url,
      type: m.type,
      medium: m.medium,
      isDefault: m.isDefault ? 'true' : undefined,
      expression: 'full',
      fileSize: m.fileSize,
      width: m.width,
      height: m.height,
      duration: seconds(m.duration),
    }),
  )
}

function itemXml(item: FeedItem): XmlNode {
  const children: XmlNode[] = [text('title', item.title)]
  if (item.link) children.push(text('link', item.link))
  children.push(
    text('description', htmlOf(item.description)),
    text('guid', item.guid, { isPermaLink: 'false' }),
    text('pubDate', rfc822(item.date)),
  )
  if (item.enclosure) children.push(empty('enclosure', { ...item.enclosure }))
  // Flavors of one resource are the same content in several forms: one `media:group` (Media RSS).
  if (item.contents.length) children.push({ name: 'media:group', children: item.contents.map(mediaContent) })
  if (item.thumbnail) {
    const { url, width, height } = item.thumbnail
    children.push(empty('media:thumbnail', defined({ url, width, height })))
  }
  for (const subtitle of item.subtitles) {
    children.push(empty('media:subTitle', { type: 'text/vtt', lang: subtitle.language, href: subtitle.url }))
  }
  if (item.subtitle) children.push(text('itunes:subtitle', item.subtitle))
  const duration = seconds(item.duration)
  if (duration !== null) children.push(text('itunes:duration', duration))
  if (item.thumbnail) children.push(empty('itunes:image', { href: item.thumbnail.url }))
  children.push(text('itunes:explicit', 'false'))
  return { name: 'item', children }
}

/**
 * A feed as RSS 2.0 with Media RSS and iTunes elements. Element names come from code; every
 * value is escaped by the kernel's XML writer. Dates of the same data give the same bytes (no
 * clock read here), so the ETag of a feed holds until something in it changes.
 */
export function feedRss(doc: FeedDocument): string {
  const channel: XmlNode[] = [
    text('title', doc.title),
    text('link', doc.link),
    text('description', htmlOf(doc.description || doc.title)),
    empty('atom:link', { href: doc.self, rel: 'self', type: 'application/rss+xml' }),
    text('generator', 'mediactl'),
    text('lastBuildDate', rfc822(doc.lastBuild)),
  ]
  const newest = doc.items[0]
  if (newest) channel.push(text('pubDate', rfc822(newest.date)))
  channel.push(
    text('ttl', doc.ttlMinutes),
    text('itunes:author', doc.title),
    text('itunes:explicit', 'false'),
    ...doc.items.map(itemXml),
  )
  return renderXml({
    name: 'rss',
    attrs: {
      version: '2.0',
      'xmlns:atom': FEED_NAMESPACES.atom,
      'xmlns:media': FEED_NAMESPACES.media,
      'xmlns:itunes': FEED_NAMESPACES.itunes,
    },
    children: [{ name: 'channel', children: channel }],
  })
}
