import type { Reader } from '../../src/kernel/index.js'
import type { Media } from './media.entity.js'

/** What the answers show of a media (the entity without the ORM). */
export type MediaView = Pick<
  Media,
  'id' | 'slug' | 'name' | 'domain' | 'description' | 'contactEmail' | 'maxStreams'
> & {
  platformId: number
  platformSlug: string
}

const COLUMNS = `m.id, m.slug, m.name, m.domain, m.description, m.contact_email, m.max_streams, m.platform_id,
  p.slug as platform_slug`
const FROM = 'medias m join platforms p on p.id = m.platform_id'

const toView = (row: Record<string, unknown>): MediaView => ({
  id: Number(row.id),
  slug: String(row.slug),
  name: String(row.name),
  domain: String(row.domain),
  description: String(row.description),
  contactEmail: String(row.contact_email),
  maxStreams: Number(row.max_streams),
  platformId: Number(row.platform_id),
  platformSlug: String(row.platform_slug),
})

/** Which media of a platform a list shows: all of them, or only these ids (see `Authz.scope`). */
export type MediaScope = 'all' | ReadonlySet<number>

function scoped(scope: MediaScope): { sql: string; params: number[] } {
  if (scope === 'all') return { sql: '', params: [] }
  const ids = [...scope]
  if (ids.length === 0) return { sql: ' and 1 = 0', params: [] }
  return { sql: ` and m.id in (${ids.map(() => '?').join(',')})`, params: ids }
}

/** Prepared reads of media (committed data). */
export const mediaQueries = {
  async bySlug(reader: Reader, slug: string): Promise<MediaView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where m.slug = ?`, [slug])
    return row && toView(row)
  },
  async byId(reader: Reader, id: number): Promise<MediaView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where m.id = ?`, [id])
    return row && toView(row)
  },
  /** The media serving a host name (lowercase), for host-based routing. */
  async byDomain(reader: Reader, domain: string): Promise<MediaView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where m.domain = ?`, [domain])
    return row && toView(row)
  },
  async count(reader: Reader, platformId: number, scope: MediaScope): Promise<number> {
    const { sql, params } = scoped(scope)
    return reader.count(`select count(*) as n from medias m where m.platform_id = ?${sql}`, [platformId, ...params])
  },
  async page(reader: Reader, platformId: number, scope: MediaScope, offset: number, limit: number) {
    const { sql, params } = scoped(scope)
    const rows = await reader.all(
      `select ${COLUMNS} from ${FROM} where m.platform_id = ?${sql} order by m.id limit ? offset ?`,
      [platformId, ...params, limit, offset],
    )
    return rows.map(toView)
  },
  /** Slugs of the media of a platform (or of every platform), oldest first, at most `limit`. */
  async slugs(reader: Reader, platformId: number | null, scope: MediaScope, limit: number): Promise<string[]> {
    const { sql, params } = scoped(scope)
    const where = platformId === null ? '1 = 1' : 'm.platform_id = ?'
    const rows = await reader.all(`select m.slug from medias m where ${where}${sql} order by m.id limit ?`, [
      ...(platformId === null ? [] : [platformId]),
      ...params,
      limit,
    ])
    return rows.map((row) => String(row.slug))
  },
}
