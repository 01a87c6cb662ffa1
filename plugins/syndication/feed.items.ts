import type { HttpContext } from '../../src/kernel/index.js'
import { type RenditionView, renditionQueries } from '../encoding/index.js'
import type { FlavorChoice } from '../channels/index.js'
import type { PublicEntry } from '../resources/index.js'
import { syndicationChannelType } from '../channels/index.js'
import type { SyndicationDeps } from './syndication.deps.js'

/**
 * Seconds the media links of a feed stay valid at least: a week, so a podcast app that fetched
 * the feed last week-end still downloads what it lists. The expiry is rounded up to the hour
 * (`resourceToken`), so the feed's bytes, and its ETag, change once an hour at most.
 */
export const FEED_TOKEN_TTL = 7 * 24 * 3600

/** One `media:content`: a flavor of the resource. */
export interface FeedMedia {
  url: string
  /** MIME type. */
  type: string
  medium: 'video' | 'audio'
  /** Bytes; null for HLS (a playlist of segments). */
  fileSize: number | null
  width: number | null
  height: number | null
  /** Seconds. */
  duration: number | null
  /** The enclosure's flavor. */
  isDefault: boolean
}

/** What one item of a feed shows. */
export interface FeedItem {
  /** The resource's slug: unique, never changes. */
  guid: string
  title: string
  subtitle: string
  /** Plain text. */
  description: string
  date: Date
  /** The resource's page (its player), else its download; null without either. */
  link: string | null
  /** The syndication channel's `download` flavor; null when the file has none (a document). */
  enclosure: { url: string; length: number; type: string } | null
  contents: FeedMedia[]
  thumbnail: { url: string; width: number | null; height: number | null } | null
  subtitles: { language: string; url: string }[]
  /** Seconds. */
  duration: number | null
}

const HLS_TYPE = 'application/vnd.apple.mpegurl'

const mediumOf = (mimeType: string): 'video' | 'audio' => (mimeType.startsWith('audio/') ? 'audio' : 'video')

/** A rendition's `media:content`, or the HLS playlist's. */
function contentOf(choice: FlavorChoice, url: string, duration: number | null, download?: RenditionView): FeedMedia {
  if (choice.source !== 'rendition') {
    const none = { fileSize: null, width: null, height: null, isDefault: false }
    return { url, type: HLS_TYPE, medium: 'video', duration, ...none }
  }
  const r = choice.rendition
  const video = mediumOf(r.mimeType) === 'video'
  return {
    url,
    type: r.mimeType,
    medium: mediumOf(r.mimeType),
    fileSize: r.size,
    width: video ? r.width : null,
    height: video ? r.height : null,
    duration: r.duration ?? duration,
    isDefault: r.id === download?.id,
  }
}

/**
 * The items of a feed, in the order of `entries`: their media URLs come from the resources
 * plugin's own answers (with media tokens of `FEED_TOKEN_TTL`, so they open without
 * credentials), their sizes and types from the renditions, and their flavors from what the
 * media's online channels offer, but the uploaded original (`source`), which is for programs
 * reading the web service, not for the public.
 */
export async function feedItems(
  deps: SyndicationDeps,
  c: HttpContext,
  mediaId: number,
  entries: readonly PublicEntry[],
): Promise<FeedItem[]> {
  if (!entries.length) return []
  const reader = c.reader
  const fileIds = [...new Set(entries.map((e) => e.resource.fileId))]
  const [details, renditions, thumbnails, offer] = await Promise.all([
    deps.describer.describe(
      c,
      entries.map((e) => e.resource),
      { withToken: true, tokenTtl: FEED_TOKEN_TTL },
    ),
    renditionQueries.ofFiles(reader, fileIds),
    deps.shown.thumbnails(fileIds),
    deps.offers.of(reader, mediaId),
  ])
  return entries.map(({ resource, fileType, date }) => {
    const detail = details.get(resource.id)!
    const ofFile = renditions.get(resource.fileId) ?? []
    const file = { type: fileType }
    const urlByName = new Map(detail.flavors.map((f) => [f.name, f.url]))
    const choices = offer.flavors(file, ofFile).filter((choice) => choice.source !== 'original')
    // The channel type picks the download; its URL is that of whichever offered flavor is that rendition.
    const pick = syndicationChannelType.flavors(file, ofFile)[0]
    const download = pick?.source === 'rendition' ? pick.rendition : undefined
    const contents: FeedMedia[] = []
    let enclosure: FeedItem['enclosure'] = null
    for (const choice of choices) {
      const url = urlByName.get(choice.name)
      // One rendition offered under two names (`720p` by the web channel, `download` here) is one file: listed once.
      if (!url || contents.some((content) => content.url === url)) continue
      const content = contentOf(choice, url, detail.duration, download)
      contents.push(content)
      if (content.isDefault && !enclosure) enclosure = { url, length: content.fileSize ?? 0, type: content.type }
    }
    const thumbnail = thumbnails.get(resource.fileId)
    return {
      guid: resource.slug,
      title: resource.title,
      subtitle: resource.subtitle,
      description: resource.description,
      date,
      link: detail.players.length ? c.links.url('player', resource.slug) : (enclosure?.url ?? null),
      enclosure,
      contents,
      thumbnail: detail.thumbnail
        ? { url: detail.thumbnail, width: thumbnail?.width ?? null, height: thumbnail?.height ?? null }
        : null,
      subtitles: detail.subtitles.map((s) => ({ language: s.language, url: s.href })),
      duration: detail.duration,
    }
  })
}
