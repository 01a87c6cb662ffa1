import type { Reader, Row } from '../../src/kernel/index.js'

/** A widget as the answers, the embed codes and the player page see it (no ORM objects). */
export interface WidgetView {
  id: number
  /** Generated from the name at creation; unique across the installation; never changes. */
  slug: string
  name: string
  width: number
  height: number
  resourceId: number
  resourceSlug: string
  /** The theme's id, or null for the player's defaults. */
  themeId: number | null
  /** Its slug and its platform's slug (for its link), null with `themeId`. */
  theme: { slug: string; platformSlug: string } | null
  /** The behavior's id, or null for the player's defaults. */
  behaviorId: number | null
  behavior: { slug: string; platformSlug: string } | null
}

const SELECT = `select w.id, w.slug, w.name, w.width, w.height, w.resource_id, r.slug as resource_slug,
    w.player_theme_id, t.slug as theme_slug, tp.slug as theme_platform_slug,
    w.player_behavior_id, b.slug as behavior_slug, bp.slug as behavior_platform_slug
  from widgets w join resources r on r.id = w.resource_id
    left join player_themes t on t.id = w.player_theme_id left join platforms tp on tp.id = t.platform_id
    left join player_behaviors b on b.id = w.player_behavior_id left join platforms bp on bp.id = b.platform_id`

const idOrNull = (value: unknown): number | null => (value == null ? null : Number(value))
const addressed = (slug: unknown, platformSlug: unknown) =>
  slug == null ? null : { slug: String(slug), platformSlug: String(platformSlug) }

const toView = (row: Row): WidgetView => ({
  id: Number(row.id),
  slug: String(row.slug),
  name: String(row.name),
  width: Number(row.width),
  height: Number(row.height),
  resourceId: Number(row.resource_id),
  resourceSlug: String(row.resource_slug),
  themeId: idOrNull(row.player_theme_id),
  theme: addressed(row.theme_slug, row.theme_platform_slug),
  behaviorId: idOrNull(row.player_behavior_id),
  behavior: addressed(row.behavior_slug, row.behavior_platform_slug),
})

/** What `resource.describe` shows of a widget. */
export type WidgetSummary = Pick<WidgetView, 'slug' | 'name' | 'width' | 'height' | 'resourceId'>

/** At most this many resource ids per statement (well below the bound variables SQLite allows). */
const IDS_PER_QUERY = 1000

/** Prepared reads of widgets (committed data). */
export const widgetQueries = {
  async bySlug(reader: Reader, slug: string): Promise<WidgetView | undefined> {
    const row = await reader.one(`${SELECT} where w.slug = ?`, [slug])
    return row && toView(row)
  },
  async byId(reader: Reader, id: number): Promise<WidgetView | undefined> {
    const row = await reader.one(`${SELECT} where w.id = ?`, [id])
    return row && toView(row)
  },
  /** How many widgets a resource has. */
  count(reader: Reader, resourceId: number): Promise<number> {
    return reader.count('select count(*) as n from widgets where resource_id = ?', [resourceId])
  },
  /** One page of a resource's widgets, oldest first. */
  async page(reader: Reader, resourceId: number, offset: number, limit: number): Promise<WidgetView[]> {
    const rows = await reader.all(`${SELECT} where w.resource_id = ? order by w.id limit ? offset ?`, [
      resourceId,
      limit,
      offset,
    ])
    return rows.map(toView)
  },
  /** The widgets of several resources, oldest first: one query for a page of resources. */
  async ofResources(reader: Reader, resourceIds: readonly number[]): Promise<WidgetSummary[]> {
    const out: WidgetSummary[] = []
    for (let start = 0; start < resourceIds.length; start += IDS_PER_QUERY) {
      const ids = resourceIds.slice(start, start + IDS_PER_QUERY)
      const rows = await reader.all(
        `select id, slug, name, width, height, resource_id from widgets
          where resource_id in (${ids.map(() => '?').join(',')}) order by id`,
        ids,
      )
      for (const row of rows) {
        out.push({
          slug: String(row.slug),
          name: String(row.name),
          width: Number(row.width),
          height: Number(row.height),
          resourceId: Number(row.resource_id),
        })
      }
    }
    return out
  },
}
