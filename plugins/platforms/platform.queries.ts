import type { Reader } from '../../src/kernel/index.js'
import type { Platform } from './platform.entity.js'

/** What the read endpoints show of a platform (the entity without its bookkeeping). */
export type PlatformView = Pick<Platform, 'id' | 'slug' | 'name' | 'maxUsers' | 'maxSpace' | 'timestamps'>

interface PlatformRow {
  id: number
  slug: string
  name: string
  max_users: number | string
  max_space: number | string
  timestamps: string | null
  [column: string]: unknown
}

const COLUMNS = 'id, slug, name, max_users, max_space, timestamps'

// PostgreSQL returns bigint columns as strings; every value here is within 2^53.
const toView = (row: PlatformRow): PlatformView => ({
  id: Number(row.id),
  slug: row.slug,
  name: row.name,
  maxUsers: Number(row.max_users),
  maxSpace: Number(row.max_space),
  timestamps: (row.timestamps as Platform['timestamps']) ?? null,
})

/** Prepared reads of platforms for the hot GET endpoints (committed data). */
export const platformQueries = {
  async bySlug(reader: Reader, slug: string): Promise<PlatformView | undefined> {
    const row = await reader.one<PlatformRow>(`select ${COLUMNS} from platforms where slug = ?`, [slug])
    return row && toView(row)
  },
  async byId(reader: Reader, id: number): Promise<PlatformView | undefined> {
    const row = await reader.one<PlatformRow>(`select ${COLUMNS} from platforms where id = ?`, [id])
    return row && toView(row)
  },
  async count(reader: Reader): Promise<number> {
    return reader.count('select count(*) as n from platforms')
  },
  async page(reader: Reader, offset: number, limit: number): Promise<PlatformView[]> {
    const rows = await reader.all<PlatformRow>(`select ${COLUMNS} from platforms order by id limit ? offset ?`, [
      limit,
      offset,
    ])
    return rows.map(toView)
  },
}
