import { type ProcessCache, type Reader, serviceKey } from '../../src/kernel/index.js'
import { type SubtitleView, subtitleQueries } from './subtitle.queries.js'

/** The subtitles of files, for the answers that list them (`FILE_SUBTITLES`). */
export interface FileSubtitles {
  /** By file id, each file's in id order (committed data); a file without any has an empty list. */
  ofFiles(fileIds: readonly number[]): Promise<Map<number, SubtitleView[]>>
}

/** The subtitles plugin's subtitles of files, for the plugins that show resources. */
export const FILE_SUBTITLES = serviceKey<FileSubtitles>('subtitles.of-files')

/** Each file's subtitles kept in `cache` until a subtitle changes: every resource answer lists them. */
export function fileSubtitles(reader: Reader, cache: ProcessCache<SubtitleView[]>): FileSubtitles {
  return { ofFiles: (fileIds) => cache.getMany(fileIds, (missing) => subtitleQueries.ofFiles(reader, missing)) }
}
