import type { Reader, Row } from '../../src/kernel/index.js'

/** What the answers show of a channel (the entity without the ORM). */
export interface ChannelView {
  id: number
  slug: string
  name: string
  type: string
  isOnline: boolean
  theme: string | null
  skin: string | null
  mediaId: number
  mediaSlug: string
}

const COLUMNS = `c.id, c.slug, c.name, c.type, c.is_online, c.theme, c.skin, c.media_id, m.slug as media_slug`
const FROM = 'channels c join medias m on m.id = c.media_id'

const text = (value: unknown): string | null => (value == null ? null : String(value))

// SQLite answers booleans as 0/1, PostgreSQL as true/false.
const toView = (row: Row): ChannelView => ({
  id: Number(row.id),
  slug: String(row.slug),
  name: String(row.name),
  type: String(row.type),
  isOnline: row.is_online === true || Number(row.is_online) === 1,
  theme: text(row.theme),
  skin: text(row.skin),
  mediaId: Number(row.media_id),
  mediaSlug: String(row.media_slug),
})

/** Prepared reads of channels (committed data). */
export const channelQueries = {
  /** The channel of this slug, if it belongs to that media. */
  async bySlug(reader: Reader, mediaId: number, slug: string): Promise<ChannelView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where c.slug = ? and c.media_id = ?`, [slug, mediaId])
    return row && toView(row)
  },
  async byId(reader: Reader, id: number): Promise<ChannelView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from ${FROM} where c.id = ?`, [id])
    return row && toView(row)
  },
  async count(reader: Reader, mediaId: number): Promise<number> {
    return reader.count('select count(*) as n from channels where media_id = ?', [mediaId])
  },
  /** One page of a media's channels, oldest first. */
  async page(reader: Reader, mediaId: number, offset: number, limit: number): Promise<ChannelView[]> {
    const rows = await reader.all(
      `select ${COLUMNS} from ${FROM} where c.media_id = ? order by c.id limit ? offset ?`,
      [mediaId, limit, offset],
    )
    return rows.map(toView)
  },
  /** The types of a media's online channels, oldest channel first. */
  async onlineTypes(reader: Reader, mediaId: number): Promise<string[]> {
    // `and is_online`, not `= ?`: SQLite stores booleans as 0/1 and cannot bind true.
    const rows = await reader.all('select type from channels where media_id = ? and is_online order by id', [mediaId])
    return rows.map((row) => String(row.type))
  },
}
