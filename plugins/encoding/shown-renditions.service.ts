import { type ProcessCache, type Reader, serviceKey } from '../../src/kernel/index.js'
import { type RenditionView, renditionQueries } from './rendition.queries.js'

/** The renditions answers show (`SHOWN_RENDITIONS`): every one, of the snapshots the selected one only. */
export interface ShownRenditions {
  /** By file id, each file's in id order (committed data); a file without any has an empty list. */
  ofFiles(fileIds: readonly number[]): Promise<Map<number, RenditionView[]>>
  /** What shows as each file's thumbnail (`thumbnailOf`), by file id; files without one are absent. */
  thumbnails(fileIds: readonly number[]): Promise<Map<number, RenditionView>>
}

/** What shows as a file's thumbnail: the selected snapshot, else the `thumbnail` rendition (images). */
export const thumbnailOf = (renditions: readonly RenditionView[]): RenditionView | undefined =>
  renditions.find((r) => r.kind === 'snapshot' && r.selected) ?? renditions.find((r) => r.kind === 'thumbnail')

/** The encoding plugin's shown renditions, for the plugins that show files and resources. */
export const SHOWN_RENDITIONS = serviceKey<ShownRenditions>('encoding.shown-renditions')

/**
 * Each file's shown renditions kept in `cache` until a rendition changes (an encoding ends, a
 * snapshot is selected): every answer showing a resource lists them, and a published file's
 * renditions rarely change.
 */
export function shownRenditions(reader: Reader, cache: ProcessCache<RenditionView[]>): ShownRenditions {
  const ofFiles = (fileIds: readonly number[]) =>
    cache.getMany(fileIds, (missing) => renditionQueries.ofFiles(reader, missing, { snapshots: 'selected' }))
  return {
    ofFiles,
    async thumbnails(fileIds) {
      const found = new Map<number, RenditionView>()
      for (const [fileId, renditions] of await ofFiles(fileIds)) {
        const thumbnail = thumbnailOf(renditions)
        if (thumbnail) found.set(fileId, thumbnail)
      }
      return found
    },
  }
}
