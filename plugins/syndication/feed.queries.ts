import { type Reader, type Row, jsonColumn } from '../../src/kernel/index.js'
import type { MetadataValue } from '../metadata/index.js'
import type { ResourceView } from '../resources/index.js'
import type { Visibility } from '../streams/index.js'

/** One resource a feed lists, with what its item needs beyond the resource's answer. */
export interface FeedEntry {
  resource: ResourceView
  /** The published file's probed type (video, audio, image, document, other): it decides the download. */
  fileType: string
  /** When the item is dated: its `published_at`, else its creation. */
  date: Date
  /** Its last change (creation or update). */
  updatedAt: Date
}

const date = (value: unknown): Date => new Date(value as string | number)

// The same columns and view as the resources plugin's answers, so `describeResources` gets what it expects.
const toEntry = (row: Row): FeedEntry => ({
  resource: {
    id: Number(row.id),
    slug: String(row.slug),
    title: String(row.title),
    subtitle: String(row.subtitle),
    description: String(row.description),
    publishedAt: row.published_at == null ? null : date(row.published_at),
    visibility: row.visibility as Visibility,
    views: Number(row.views),
    metadata: jsonColumn<Record<string, MetadataValue>>(row.metadata),
    fileId: Number(row.file_id),
    fileSlug: String(row.file_slug),
    streamId: Number(row.stream_id),
    streamSlug: String(row.stream_slug),
    mediaId: Number(row.media_id),
    platformId: Number(row.platform_id),
  },
  fileType: String(row.file_type),
  date: date(row.feed_date),
  updatedAt: date(row.updated_at),
})

/**
 * The public resources of a media: visible, in a stream that is visible with every stream
 * above it. One query: the hidden streams (those not visible, and everything below them) are
 * walked down from each one with a recursive CTE, as the streams plugin's lists do; `union`
 * (not `union all`) ends the walk even should a cycle ever be stored.
 */
const PUBLIC_RESOURCES = `with recursive hidden_streams(id) as (
    select id from streams where media_id = ? and visibility <> 'visible'
    union select c.id from streams c join hidden_streams h on c.parent_id = h.id)
  select r.id, r.slug, r.title, r.subtitle, r.description, r.published_at, r.visibility, r.views, r.metadata,
    r.file_id, f.slug as file_slug, f.type as file_type, r.stream_id, s.slug as stream_slug, s.media_id,
    f.platform_id, coalesce(r.published_at, r.created_at) as feed_date, r.updated_at
  from resources r join files f on f.id = r.file_id join streams s on s.id = r.stream_id
  where s.media_id = ? and r.visibility = 'visible' and s.id not in (select id from hidden_streams)
  order by feed_date desc, r.id desc
  limit ?`

/** Reads of what a feed lists (committed data). */
export const feedQueries = {
  /** The newest `limit` public resources of a media, newest first (ties: the last created first). */
  async entries(reader: Reader, mediaId: number, limit: number): Promise<FeedEntry[]> {
    const rows = await reader.all(PUBLIC_RESOURCES, [mediaId, mediaId, limit])
    return rows.map(toEntry)
  },
}
