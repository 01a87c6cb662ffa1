import type { Reader, Row } from '../../src/kernel/index.js'
import type { RenditionKind } from './rendition.entity.js'

/** A rendition row as routes and answers see it. */
export interface RenditionView {
  id: number
  fileId: number
  kind: RenditionKind
  name: string
  storageKey: string
  size: number
  mimeType: string
  width: number | null
  height: number | null
  duration: number | null
  selected: boolean
}

const COLUMNS = 'id, file_id, kind, name, storage_key, size, mime_type, width, height, duration, selected'

const nullable = (value: unknown): number | null => (value == null ? null : Number(value))

// PostgreSQL answers bigints as text; SQLite answers booleans as 0/1.
const renditionView = (row: Row): RenditionView => ({
  id: Number(row.id),
  fileId: Number(row.file_id),
  kind: String(row.kind) as RenditionKind,
  name: String(row.name),
  storageKey: String(row.storage_key),
  size: Number(row.size),
  mimeType: String(row.mime_type),
  width: nullable(row.width),
  height: nullable(row.height),
  duration: nullable(row.duration),
  selected: row.selected === true || Number(row.selected) === 1,
})

/** Snapshots in the order the answers list them: 0 to 9, then `custom`. */
export const snapshotOrder = (a: RenditionView, b: RenditionView): number =>
  (a.name === 'custom' ? 1e9 : Number(a.name)) - (b.name === 'custom' ? 1e9 : Number(b.name))

/** Reads of the renditions (committed data). */
export const renditionQueries = {
  /** Every rendition of a file. */
  async ofFile(reader: Reader, fileId: number): Promise<RenditionView[]> {
    const rows = await reader.all(`select ${COLUMNS} from renditions where file_id = ? order by id`, [fileId])
    return rows.map(renditionView)
  },
  /**
   * Every rendition of several files (one query for a listing), by file id; with
   * `snapshots: 'selected'`, of the snapshots only the selected one (what answers show).
   */
  async ofFiles(
    reader: Reader,
    fileIds: readonly number[],
    options: { snapshots?: 'all' | 'selected' } = {},
  ): Promise<Map<number, RenditionView[]>> {
    const found = new Map<number, RenditionView[]>(fileIds.map((id) => [id, []]))
    if (!fileIds.length) return found
    // `selected` alone, not `= ?`: SQLite stores booleans as 0/1 and cannot bind true.
    const snapshots = options.snapshots === 'selected' ? ` and (kind <> 'snapshot' or selected)` : ''
    const rows = await reader.all(
      `select ${COLUMNS} from renditions where file_id in (${fileIds.map(() => '?').join(',')})${snapshots} order by id`,
      [...fileIds],
    )
    for (const rendition of rows.map(renditionView)) found.get(rendition.fileId)?.push(rendition)
    return found
  },
  /** One rendition of a file by kind and name, or undefined. */
  async one(reader: Reader, fileId: number, kind: RenditionKind, name: string): Promise<RenditionView | undefined> {
    const row = await reader.one(`select ${COLUMNS} from renditions where file_id = ? and kind = ? and name = ?`, [
      fileId,
      kind,
      name,
    ])
    return row && renditionView(row)
  },
  /** A file's snapshots, in answer order. */
  async snapshots(reader: Reader, fileId: number): Promise<RenditionView[]> {
    const rows = await reader.all(`select ${COLUMNS} from renditions where file_id = ? and kind = 'snapshot'`, [fileId])
    return rows.map(renditionView).sort(snapshotOrder)
  },
}
