import type { Reader } from '../../src/kernel/index.js'
import type { Stream, Visibility } from './stream.entity.js'

/** What the answers show of a stream (the entity without the ORM). */
export type StreamView = Pick<Stream, 'id' | 'slug' | 'title' | 'subtitle' | 'description' | 'visibility'> & {
  mediaId: number
  mediaSlug: string
  platformId: number
  parentId: number | null
  parentSlug: string | null
}

const COLUMNS = `s.id, s.slug, s.title, s.subtitle, s.description, s.visibility, s.media_id, s.parent_id,
  m.slug as media_slug, m.platform_id, p.slug as parent_slug`
const FROM = 'streams s join medias m on m.id = s.media_id left join streams p on p.id = s.parent_id'

const toView = (row: Record<string, unknown>): StreamView => ({
  id: Number(row.id),
  slug: String(row.slug),
  title: String(row.title),
  subtitle: String(row.subtitle),
  description: String(row.description),
  visibility: row.visibility as Visibility,
  mediaId: Number(row.media_id),
  mediaSlug: String(row.media_slug),
  platformId: Number(row.platform_id),
  parentId: row.parent_id == null ? null : Number(row.parent_id),
  parentSlug: row.parent_slug == null ? null : String(row.parent_slug),
})

/**
 * Which streams of a media a list shows: `scope` as `Authz.scope` gives it (all, or the
 * streams granted directly, with everything below them), and whether hidden and draft
 * streams (and everything below them) are shown.
 */
export interface StreamFilter {
  scope: 'all' | ReadonlySet<number>
  withHidden: boolean
  /**
   * Without `withHidden`: streams on which `stream.view_protected` was granted directly.
   * Hidden and draft streams at or below them are shown, as `StreamPaths.fromPath` lets their
   * info be read (the flag applies to the stream and everything below it).
   */
  protectedScope?: ReadonlySet<number>
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(',')

/** The recursive subqueries and conditions of a filter, shared by the count and the page. */
function filtered(mediaId: number, filter: StreamFilter): { sql: string; params: number[] } {
  const ctes: string[] = []
  const where: string[] = ['s.media_id = ?']
  const cteParams: number[] = []
  if (!filter.withHidden) {
    ctes.push(`hidden_streams(id) as (select id from streams where media_id = ? and visibility <> 'visible'
      union select c.id from streams c join hidden_streams h on c.parent_id = h.id)`)
    cteParams.push(mediaId)
    const exempt = [...(filter.protectedScope ?? [])]
    if (exempt.length === 0) where.push('s.id not in (select id from hidden_streams)')
    else {
      ctes.push(`protected_streams(id) as (select id from streams where id in (${marks(exempt.length)})
        union select c.id from streams c join protected_streams g on c.parent_id = g.id)`)
      cteParams.push(...exempt)
      where.push('(s.id not in (select id from hidden_streams) or s.id in (select id from protected_streams))')
    }
  }
  if (filter.scope !== 'all') {
    const ids = [...filter.scope]
    if (ids.length === 0) where.push('1 = 0')
    else {
      ctes.push(`granted_streams(id) as (select id from streams where id in (${marks(ids.length)})
        union select c.id from streams c join granted_streams g on c.parent_id = g.id)`)
      cteParams.push(...ids)
      where.push('s.id in (select id from granted_streams)')
    }
  }
  const prefix = ctes.length ? `with recursive ${ctes.join(', ')} ` : ''
  return { sql: `${prefix}select %COLUMNS% from ${FROM} where ${where.join(' and ')}`, params: [...cteParams, mediaId] }
}

/** Prepared reads of streams (committed data). */
export const streamQueries = {
  async bySlug(reader: Reader, slug: string): Promise<StreamView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where s.slug = ?`, [slug])
    return row && toView(row)
  },
  async byId(reader: Reader, id: number): Promise<StreamView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where s.id = ?`, [id])
    return row && toView(row)
  },
  /** Whether the stream or any stream above it is hidden or draft (its content is not public). */
  async isHidden(reader: Reader, id: number): Promise<boolean> {
    // `union`, not `union all`: should a cycle ever be stored, the walk still ends.
    const row = await reader.one(
      `with recursive chain(id, parent_id, visibility) as (
         select id, parent_id, visibility from streams where id = ?
         union select s.id, s.parent_id, s.visibility from streams s join chain c on s.id = c.parent_id)
       select count(*) as n from chain where visibility <> 'visible'`,
      [id],
    )
    return Number(row?.n ?? 0) > 0
  },
  /** The ids of a stream and of every stream below it. */
  async subtree(reader: Reader, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return []
    const rows = await reader.all(
      `with recursive tree(id) as (select id from streams where id in (${marks(ids.length)})
         union select s.id from streams s join tree t on s.parent_id = t.id)
       select id from tree`,
      [...ids],
    )
    return rows.map((row) => Number(row.id))
  },
  async count(reader: Reader, mediaId: number, filter: StreamFilter): Promise<number> {
    const { sql, params } = filtered(mediaId, filter)
    return reader.count(sql.replace('%COLUMNS%', 'count(*) as n'), params)
  },
  async page(reader: Reader, mediaId: number, filter: StreamFilter, offset: number, limit: number) {
    const { sql, params } = filtered(mediaId, filter)
    const rows = await reader.all(`${sql.replace('%COLUMNS%', COLUMNS)} order by s.id limit ? offset ?`, [
      ...params,
      limit,
      offset,
    ])
    return rows.map(toView)
  },
}
