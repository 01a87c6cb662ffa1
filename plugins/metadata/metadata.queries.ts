import { type Reader, jsonColumn } from '../../src/kernel/index.js'
import type { FileType, MetadataDefinitionView, MetadataType } from './metadata.types.js'

interface Row {
  [column: string]: unknown
}

const COLUMNS = `m.id, m.slug, m.name, m.type, m.file_types, m.is_protected, m.default_value,
  m.platform_id, p.slug as platform_slug`
const FROM = 'from metadata_definitions m join platforms p on p.id = m.platform_id'

// SQLite answers JSON as text and booleans as 0/1; PostgreSQL parses JSON and answers true/false.
const toView = (row: Row): MetadataDefinitionView => ({
  id: Number(row.id),
  slug: String(row.slug),
  name: String(row.name),
  type: String(row.type) as MetadataType,
  fileTypes: jsonColumn<FileType[]>(row.file_types),
  isProtected: Boolean(row.is_protected),
  defaultValue: row.default_value == null ? null : String(row.default_value),
  platformId: Number(row.platform_id),
  platformSlug: String(row.platform_slug),
})

/** Prepared reads of metadata definitions for the GET endpoints and the file store (committed data). */
export const metadataQueries = {
  async bySlug(reader: Reader, slug: string): Promise<MetadataDefinitionView | undefined> {
    const row = await reader.one<Row>(`select ${COLUMNS} ${FROM} where m.slug = ?`, [slug])
    return row && toView(row)
  },
  async count(reader: Reader, platformId: number): Promise<number> {
    return reader.count('select count(*) as n from metadata_definitions where platform_id = ?', [platformId])
  },
  /** One page of a platform's definitions, oldest first. */
  async page(reader: Reader, platformId: number, offset: number, limit: number): Promise<MetadataDefinitionView[]> {
    const rows = await reader.all<Row>(
      `select ${COLUMNS} ${FROM} where m.platform_id = ? order by m.id limit ? offset ?`,
      [platformId, limit, offset],
    )
    return rows.map(toView)
  },
  /** Every definition of a platform, oldest first (what `checkMetadataValues` checks against). */
  async ofPlatform(reader: Reader, platformId: number): Promise<MetadataDefinitionView[]> {
    const rows = await reader.all<Row>(`select ${COLUMNS} ${FROM} where m.platform_id = ? order by m.id`, [platformId])
    return rows.map(toView)
  },
}
