import type { Reader, Row } from '../../src/kernel/index.js'
import { RESOURCE_COLUMNS, RESOURCE_FROM, type ResourceView, resourceView } from '../resources/index.js'

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

// The resources plugin's columns and view, so `describeResources` gets what it expects.
const toEntry = (row: Row): FeedEntry => ({
  resource: resourceView(row),
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
  select ${RESOURCE_COLUMNS}, f.type as file_type, coalesce(r.published_at, r.created_at) as feed_date, r.updated_at
  from ${RESOURCE_FROM}
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
