import { type Reader, type Row, jsonColumn } from '../../src/kernel/index.js'
import type { FileType, MetadataValue } from '../metadata/index.js'
import {
  ENCODING_STATUSES,
  type DirectoryView,
  type EncodingStatus,
  type FileView,
  encodingCode,
} from './files.types.js'

const FILE_COLUMNS = `f.id, f.slug, f.name, f.size, f.stored_bytes, f.type, f.mime_type, f.encoding_status,
  f.encoding_progress, f.encoding_error, f.encoding_attempt, f.encoding_max_attempts, f.encoding_next_try, f.storage_key, f.storage_prefix, f.metadata, f.user_id, u.username,
  f.platform_id, f.directory_id, d.slug as directory_slug, f.created_at`
const FILE_FROM = 'from files f join users u on u.id = f.user_id left join directories d on d.id = f.directory_id'

const DIRECTORY_COLUMNS = 'd.id, d.slug, d.name, d.user_id, d.parent_id, p.slug as parent_slug'
const DIRECTORY_FROM = 'from directories d left join directories p on p.id = d.parent_id'

const nullableNumber = (value: unknown): number | null => (value == null ? null : Number(value))
/** SQLite answers epoch milliseconds (as a number or text), PostgreSQL a date or text. */
const dateOf = (value: unknown): Date =>
  value instanceof Date ? value : new Date(/^\d+$/.test(String(value)) ? Number(value) : String(value))
const nullableString = (value: unknown): string | null => (value == null ? null : String(value))

// PostgreSQL answers bigints as text and parses JSON; SQLite answers JSON as text.
export const fileView = (row: Row): FileView => ({
  id: Number(row.id),
  slug: String(row.slug),
  name: String(row.name),
  size: Number(row.size),
  storedBytes: Number(row.stored_bytes),
  type: String(row.type) as FileType,
  mimeType: String(row.mime_type),
  encodingStatus: ENCODING_STATUSES[Number(row.encoding_status)] ?? 'pending',
  encodingProgress: Number(row.encoding_progress),
  encodingError: nullableString(row.encoding_error),
  encodingRetry:
    row.encoding_next_try == null
      ? null
      : {
          attempt: Number(row.encoding_attempt),
          maxAttempts: Number(row.encoding_max_attempts),
          nextTry: dateOf(row.encoding_next_try),
        },
  storageKey: String(row.storage_key),
  storagePrefix: String(row.storage_prefix),
  metadata: jsonColumn<Record<string, MetadataValue>>(row.metadata),
  userId: Number(row.user_id),
  username: String(row.username),
  platformId: Number(row.platform_id),
  directoryId: nullableNumber(row.directory_id),
  directorySlug: nullableString(row.directory_slug),
  createdAt: new Date(row.created_at as string | number),
})

const directoryView = (row: Row): DirectoryView => ({
  id: Number(row.id),
  slug: String(row.slug),
  name: String(row.name),
  userId: Number(row.user_id),
  parentId: nullableNumber(row.parent_id),
  parentSlug: nullableString(row.parent_slug),
})

/** The filters of `fileIndex`: each one absent means any. */
export interface FileIndexFilter {
  type?: FileType
  status?: EncodingStatus
  /** A directory's id, null for the root; undefined: anywhere. */
  directoryId?: number | null
}

export interface FileIndexEntry {
  id: number
  name: string
  size: number
}

/** `= ?` for a directory id, `is null` for the root. */
const inDirectory = (column: string, directoryId: number | null): [string, unknown[]] =>
  directoryId === null ? [`${column} is null`, []] : [`${column} = ?`, [directoryId]]

/** Prepared reads of the file store for the GET endpoints and other plugins (committed data). */
export const fileQueries = {
  async fileBySlug(reader: Reader, slug: string): Promise<FileView | undefined> {
    const row = await reader.one(`select ${FILE_COLUMNS} ${FILE_FROM} where f.slug = ?`, [slug])
    return row && fileView(row)
  },
  /** Files whose encoding is not settled (pending, waiting, running), oldest first, at most `limit`: what the reconciler checks. */
  async unsettled(reader: Reader, limit: number): Promise<{ id: number; slug: string; size: number }[]> {
    const rows = await reader.all(
      'select id, slug, size from files where encoding_status in (?, ?, ?) order by id limit ?',
      [encodingCode('pending'), encodingCode('waiting'), encodingCode('running'), limit],
    )
    return rows.map((row) => ({ id: Number(row.id), slug: String(row.slug), size: Number(row.size) }))
  },

  async fileById(reader: Reader, id: number): Promise<FileView | undefined> {
    const row = await reader.one(`select ${FILE_COLUMNS} ${FILE_FROM} where f.id = ?`, [id])
    return row && fileView(row)
  },
  /** Several files by id (one query for a listing), by id; missing ones are absent. */
  async filesByIds(reader: Reader, ids: readonly number[]): Promise<Map<number, FileView>> {
    if (!ids.length) return new Map()
    const rows = await reader.all(
      `select ${FILE_COLUMNS} ${FILE_FROM} where f.id in (${ids.map(() => '?').join(',')})`,
      [...ids],
    )
    return new Map(rows.map((row) => [Number(row.id), fileView(row)]))
  },
  /** The files of one of a user's directories (null: the root), oldest first. */
  async filesIn(reader: Reader, userId: number, directoryId: number | null): Promise<FileView[]> {
    const [where, params] = inDirectory('f.directory_id', directoryId)
    const rows = await reader.all(
      `select ${FILE_COLUMNS} ${FILE_FROM} where f.user_id = ? and ${where} order by f.id`,
      [userId, ...params],
    )
    return rows.map(fileView)
  },
  /**
   * A user's files that pass the library's filters, one light row each (id, name, size): what `GET /search/files`
   * sorts and pages before it reads the full rows of one page. `directoryId`: undefined anywhere, null the root.
   */
  async fileIndex(reader: Reader, userId: number, filter: FileIndexFilter): Promise<FileIndexEntry[]> {
    const where = ['user_id = ?']
    const params: unknown[] = [userId]
    if (filter.type) {
      where.push('type = ?')
      params.push(filter.type)
    }
    if (filter.status) {
      where.push('encoding_status = ?')
      params.push(encodingCode(filter.status))
    }
    if (filter.directoryId !== undefined) {
      const [clause, values] = inDirectory('directory_id', filter.directoryId)
      where.push(clause)
      params.push(...values)
    }
    const rows = await reader.all(`select id, name, size from files where ${where.join(' and ')} order by id`, params)
    return rows.map((row) => ({ id: Number(row.id), name: String(row.name), size: Number(row.size) }))
  },
  async directoryBySlug(reader: Reader, slug: string): Promise<DirectoryView | undefined> {
    const row = await reader.one(`select ${DIRECTORY_COLUMNS} ${DIRECTORY_FROM} where d.slug = ?`, [slug])
    return row && directoryView(row)
  },
  /** The subdirectories of one of a user's directories (null: the root), oldest first. */
  async directoriesIn(reader: Reader, userId: number, parentId: number | null): Promise<DirectoryView[]> {
    const [where, params] = inDirectory('d.parent_id', parentId)
    const rows = await reader.all(
      `select ${DIRECTORY_COLUMNS} ${DIRECTORY_FROM} where d.user_id = ? and ${where} order by d.id`,
      [userId, ...params],
    )
    return rows.map(directoryView)
  },
  /** Every directory of a user, oldest first (the search filters names in code: see `searchDirectories`). */
  async directoriesOf(reader: Reader, userId: number): Promise<DirectoryView[]> {
    const rows = await reader.all(`select ${DIRECTORY_COLUMNS} ${DIRECTORY_FROM} where d.user_id = ? order by d.id`, [
      userId,
    ])
    return rows.map(directoryView)
  },
  /** Bytes stored by a platform's files, renditions included (`used_space`). */
  async platformBytes(reader: Reader, platformId: number): Promise<number> {
    const row = await reader.one('select sum(stored_bytes) as n from files where platform_id = ?', [platformId])
    return Number(row?.n ?? 0)
  },
}
