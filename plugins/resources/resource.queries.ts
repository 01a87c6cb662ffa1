import { type Reader, jsonColumn } from '../../src/kernel/index.js'
import type { MetadataValue } from '../metadata/index.js'
import type { Visibility } from '../streams/index.js'
import type { Resource } from './resource.entity.js'

/** What the answers show of a resource (the entity without the ORM), with the slugs its links need. */
export type ResourceView = Pick<
  Resource,
  'id' | 'slug' | 'title' | 'subtitle' | 'description' | 'publishedAt' | 'visibility' | 'views' | 'metadata'
> & {
  fileId: number
  fileSlug: string
  streamId: number
  streamSlug: string
  mediaId: number
  platformId: number
}

/** The columns `resourceView` reads (aliases `r` resources, `f` files, `s` streams). */
const COLUMNS = `r.id, r.slug, r.title, r.subtitle, r.description, r.published_at, r.visibility, r.views, r.metadata,
  r.file_id, f.slug as file_slug, r.stream_id, s.slug as stream_slug, s.media_id, f.platform_id`
/** The joins `COLUMNS` need. */
const FROM = 'resources r join files f on f.id = r.file_id join streams s on s.id = r.stream_id'

const date = (value: unknown): Date | null => (value == null ? null : new Date(value as string | number))

/** A resource's view from a row of `COLUMNS`. */
const resourceView = (row: Record<string, unknown>): ResourceView => ({
  id: Number(row.id),
  slug: String(row.slug),
  title: String(row.title),
  subtitle: String(row.subtitle),
  description: String(row.description),
  publishedAt: date(row.published_at),
  visibility: row.visibility as Visibility,
  views: Number(row.views),
  metadata: jsonColumn<Record<string, MetadataValue>>(row.metadata),
  fileId: Number(row.file_id),
  fileSlug: String(row.file_slug),
  streamId: Number(row.stream_id),
  streamSlug: String(row.stream_slug),
  mediaId: Number(row.media_id),
  platformId: Number(row.platform_id),
})

/** A public resource as a feed lists it, with what its item needs beyond the resource's answer. */
export interface PublicEntry {
  resource: ResourceView
  /** The published file's probed type (video, audio, image, document, other): it decides the download. */
  fileType: string
  /** When the item is dated: its `published_at`, else its creation. */
  date: Date
  /** Its last change (creation or update). */
  updatedAt: Date
}

/**
 * The public resources of a media: visible, in a stream that is visible with every stream
 * above it. One query: the hidden streams (those not visible, and everything below them) are
 * walked down from each one with a recursive CTE; `union` (not `union all`) ends the walk even
 * should a cycle ever be stored.
 */
const NEWEST_PUBLIC = `with recursive hidden_streams(id) as (
    select id from streams where media_id = ? and visibility <> 'visible'
    union select c.id from streams c join hidden_streams h on c.parent_id = h.id)
  select ${COLUMNS}, f.type as file_type, coalesce(r.published_at, r.created_at) as feed_date, r.updated_at
  from ${FROM}
  where s.media_id = ? and r.visibility = 'visible' and s.id not in (select id from hidden_streams)
  order by feed_date desc, r.id desc
  limit ?`

/**
 * Which resources of a stream a list shows: `scope` as `Authz.scope` gives it (all, or the
 * resources granted directly), and whether hidden and draft ones are shown.
 */
export interface ResourceFilter {
  scope: 'all' | ReadonlySet<number>
  withHidden: boolean
}

/**
 * Ids per bucket in `resource_buckets` (`id >> 10`, migrations/20270128-resources-buckets.ts).
 * Pages starting below one bucket walk the index from the start, which costs less than the sum.
 */
const BUCKET_IDS = 1024

/** The counts of a stream's buckets a list without a scope sums (every visibility, or the visible ones). */
const bucketsOf = (withHidden: boolean): string =>
  `select bucket, sum(n) as n from resource_buckets
   where stream_id = ?${withHidden ? '' : ` and visibility = 'visible'`} group by bucket`

/**
 * A page from its offset: the first bucket whose running sum passes the offset, then a seek on
 * `(stream_id, id)` at its first id, skipping fewer than one bucket's entries there. The same
 * rows as `limit ? offset ?` over the whole stream, at about the cost of the first page. Past
 * the end there is no such bucket: no id passes `>= null`, the page is empty.
 */
const seekPage = (withHidden: boolean): string => `with b as (${bucketsOf(withHidden)}),
  c as (select bucket, n, sum(n) over (order by bucket) - n as before from b),
  start as (select bucket, before from c where before + n > ? order by bucket limit 1)
  select ${COLUMNS} from (select r.id from resources r
    where r.stream_id = ?${withHidden ? '' : ` and r.visibility = 'visible'`} and r.id >= (select bucket from start) * ${BUCKET_IDS}
    order by r.id limit ? offset coalesce(? - (select before from start), 0)) page
  join resources r on r.id = page.id join files f on f.id = r.file_id join streams s on s.id = r.stream_id
  order by r.id`

function filtered(streamId: number, filter: ResourceFilter): { where: string; params: unknown[] } {
  const where = ['r.stream_id = ?']
  const params: unknown[] = [streamId]
  if (!filter.withHidden) where.push(`r.visibility = 'visible'`)
  if (filter.scope !== 'all') {
    const ids = [...filter.scope]
    where.push(ids.length ? `r.id in (${ids.map(() => '?').join(',')})` : '1 = 0')
    params.push(...ids)
  }
  return { where: where.join(' and '), params }
}

/** Most granted ids a list binds twice in one statement (its count and its page); SQLite binds at most 32,766. */
const IDS_JOINED_MAX = 4000

/** A statement and its parameters. */
interface Statement {
  sql: string
  params: unknown[]
}

/** How many resources of a stream a list shows (`n`). Without a scope, the sum of the stream's buckets; a scope is a list of granted ids, counted directly. */
function countOf(streamId: number, filter: ResourceFilter): Statement {
  if (filter.scope === 'all') {
    return { sql: `select coalesce(sum(n), 0) as n from (${bucketsOf(filter.withHidden)}) b`, params: [streamId] }
  }
  const { where, params } = filtered(streamId, filter)
  return { sql: `select count(*) as n from resources r where ${where}`, params }
}

/** One page of the resources of a stream a list shows, in id order. */
function pageOf(streamId: number, filter: ResourceFilter, offset: number, limit: number): Statement {
  if (filter.scope === 'all' && offset >= BUCKET_IDS) {
    return { sql: seekPage(filter.withHidden), params: [streamId, offset, streamId, limit, offset] }
  }
  const { where, params } = filtered(streamId, filter)
  // The page's ids first, from the (stream, id) index alone: deep pages then join only their own rows.
  return {
    sql: `select ${COLUMNS} from (select r.id from resources r where ${where} order by r.id limit ? offset ?) page
       join resources r on r.id = page.id join files f on f.id = r.file_id join streams s on s.id = r.stream_id
       order by r.id`,
    params: [...params, limit, offset],
  }
}

/** Prepared reads of resources (committed data). */
export const resourceQueries = {
  async bySlug(reader: Reader, slug: string): Promise<ResourceView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where r.slug = ?`, [slug])
    return row && resourceView(row)
  },
  async byId(reader: Reader, id: number): Promise<ResourceView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where r.id = ?`, [id])
    return row && resourceView(row)
  },
  count(reader: Reader, streamId: number, filter: ResourceFilter): Promise<number> {
    const { sql, params } = countOf(streamId, filter)
    return reader.count(sql, params)
  },
  async page(reader: Reader, streamId: number, filter: ResourceFilter, offset: number, limit: number) {
    const { sql, params } = pageOf(streamId, filter, offset, limit)
    return (await reader.all(sql, params)).map(resourceView)
  },
  /**
   * `count` and `page` in one statement (one round trip): the count's single row, joined to
   * the page's rows; a page past the end leaves that row alone, its page columns null.
   */
  async counted(
    reader: Reader,
    streamId: number,
    filter: ResourceFilter,
    offset: number,
    limit: number,
  ): Promise<{ total: number; items: ResourceView[] }> {
    const count = countOf(streamId, filter)
    const page = pageOf(streamId, filter, offset, limit)
    // A scope's ids are bound in both: past a few thousand, two statements stay under SQLite's bound variables.
    if (filter.scope !== 'all' && filter.scope.size > IDS_JOINED_MAX) {
      const total = await reader.count(count.sql, count.params)
      return { total, items: (await reader.all(page.sql, page.params)).map(resourceView) }
    }
    const rows = await reader.all(
      `with total as (${count.sql}) select total.n as list_total, p.* from total left join (${page.sql}) p on 1 = 1
       order by p.id`,
      [...count.params, ...page.params],
    )
    return {
      total: Number(rows[0]?.list_total ?? 0),
      items: rows.filter((row) => row.id != null).map(resourceView),
    }
  },
  /** The newest `limit` public resources of a media, newest first (ties: the last created first): feeds. */
  async newestPublic(reader: Reader, mediaId: number, limit: number): Promise<PublicEntry[]> {
    const rows = await reader.all(NEWEST_PUBLIC, [mediaId, mediaId, limit])
    return rows.map((row) => ({
      resource: resourceView(row),
      fileType: String(row.file_type),
      date: date(row.feed_date)!,
      updatedAt: date(row.updated_at)!,
    }))
  },
  /** The stream id of a resource (the access tree's parent). */
  async streamOf(reader: Reader, id: number): Promise<number | null> {
    const row = await reader.one('select stream_id from resources where id = ?', [id])
    return row ? Number(row.stream_id) : null
  },
}
