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

/** The columns `resourceView` reads (aliases `r` resources, `f` files, `s` streams), for other plugins' queries. */
export const RESOURCE_COLUMNS = `r.id, r.slug, r.title, r.subtitle, r.description, r.published_at, r.visibility, r.views, r.metadata,
  r.file_id, f.slug as file_slug, r.stream_id, s.slug as stream_slug, s.media_id, f.platform_id`
/** The joins `RESOURCE_COLUMNS` need. */
export const RESOURCE_FROM = 'resources r join files f on f.id = r.file_id join streams s on s.id = r.stream_id'
const COLUMNS = RESOURCE_COLUMNS
const FROM = RESOURCE_FROM

const date = (value: unknown): Date | null => (value == null ? null : new Date(value as string | number))

/** A resource's view from a row of `RESOURCE_COLUMNS`. */
export const resourceView = (row: Record<string, unknown>): ResourceView => ({
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

/**
 * Which resources of a stream a list shows: `scope` as `Authz.scope` gives it (all, or the
 * resources granted directly), and whether hidden and draft ones are shown.
 */
export interface ResourceFilter {
  scope: 'all' | ReadonlySet<number>
  withHidden: boolean
}

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
  async count(reader: Reader, streamId: number, filter: ResourceFilter): Promise<number> {
    const { where, params } = filtered(streamId, filter)
    return reader.count(`select count(*) as n from resources r where ${where}`, params)
  },
  async page(reader: Reader, streamId: number, filter: ResourceFilter, offset: number, limit: number) {
    const { where, params } = filtered(streamId, filter)
    // The page's ids first, from the (stream, id) index alone: deep pages then join only their own rows.
    const rows = await reader.all(
      `select ${COLUMNS} from (select r.id from resources r where ${where} order by r.id limit ? offset ?) page
       join resources r on r.id = page.id join files f on f.id = r.file_id join streams s on s.id = r.stream_id
       order by r.id`,
      [...params, limit, offset],
    )
    return rows.map(resourceView)
  },
  /** The stream id of a resource (the access tree's parent). */
  async streamOf(reader: Reader, id: number): Promise<number | null> {
    const row = await reader.one('select stream_id from resources where id = ?', [id])
    return row ? Number(row.stream_id) : null
  },
}
