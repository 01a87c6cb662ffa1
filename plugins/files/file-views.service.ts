import { type ProcessCache, type Reader, serviceKey } from '../../src/kernel/index.js'
import { fileQueries } from './file.queries.js'
import type { FileView } from './files.types.js'

/** Files as the answers of other plugins show them (`FILE_VIEWS`). */
export interface FileViews {
  /** By id (committed data); files that do not exist are absent. */
  byIds(ids: readonly number[]): Promise<Map<number, FileView>>
}

/** The file store's views of files, for the plugins that show what was made of them (resources). */
export const FILE_VIEWS = serviceKey<FileViews>('files.views')

/**
 * Each file's view kept in `cache` until a file, a directory or a user changes: every resource
 * answer shows its file, and a published file seldom changes (its encoding's progress does,
 * and drops the answers that show it anyway).
 */
export function fileViews(reader: Reader, cache: ProcessCache<FileView>): FileViews {
  return { byIds: (ids) => cache.getMany(ids, (missing) => fileQueries.filesByIds(reader, missing)) }
}
