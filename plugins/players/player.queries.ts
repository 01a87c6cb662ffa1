import type { Row } from '../../src/kernel/index.js'
import type { PlayerQueries, PlayerView } from './players.types.js'

/**
 * The reads of one family, from its table, the columns of its settings (`t.` prefixed) and
 * how a row becomes settings. Ids are numbers on both databases; flags are turned into
 * booleans by the family (SQLite answers 0/1, PostgreSQL true/false).
 */
export function playerQueries<S>(table: string, settingColumns: string, toSettings: (row: Row) => S): PlayerQueries<S> {
  const select = `select t.id, t.slug, t.name, t.platform_id, p.slug as platform_slug, ${settingColumns}
    from ${table} t join platforms p on p.id = t.platform_id`
  const toView = (row: Row): PlayerView<S> => ({
    id: Number(row.id),
    slug: String(row.slug),
    name: String(row.name),
    platformId: Number(row.platform_id),
    platformSlug: String(row.platform_slug),
    ...toSettings(row),
  })
  return {
    async bySlug(reader, slug) {
      const row = await reader.one(`${select} where t.slug = ?`, [slug])
      return row && toView(row)
    },
    async byId(reader, id) {
      const row = await reader.one(`${select} where t.id = ?`, [id])
      return row && toView(row)
    },
    count(reader, platformId) {
      return reader.count(`select count(*) as n from ${table} where platform_id = ?`, [platformId])
    },
    async page(reader, platformId, offset, limit) {
      const rows = await reader.all(`${select} where t.platform_id = ? order by t.id limit ? offset ?`, [
        platformId,
        limit,
        offset,
      ])
      return rows.map(toView)
    },
  }
}

/** A nullable text column. */
export const textOrNull = (value: unknown): string | null => (value == null ? null : String(value))
