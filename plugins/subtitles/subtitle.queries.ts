import type { Reader } from '../../src/kernel/index.js'

/** A subtitle as other plugins show it. */
export interface SubtitleView {
  /** `<sha1>.<language>.<srt|vtt>`: the last segment of its URLs. */
  publicId: string
  language: string
  fileId: number
  /** Storage key of the WebVTT version. */
  vttKey: string
}

const toView = (row: Record<string, unknown>): SubtitleView => ({
  publicId: String(row.public_id),
  language: String(row.language),
  fileId: Number(row.file_id),
  vttKey: String(row.vtt_key),
})

/** Reads of subtitles (committed data). */
export const subtitleQueries = {
  /** The subtitles of several files, oldest first, by file id (one query for a listing). */
  async ofFiles(reader: Reader, fileIds: readonly number[]): Promise<Map<number, SubtitleView[]>> {
    const found = new Map<number, SubtitleView[]>(fileIds.map((id) => [id, []]))
    if (!fileIds.length) return found
    const rows = await reader.all(
      `select public_id, language, file_id, vtt_key from subtitles
       where file_id in (${fileIds.map(() => '?').join(',')}) order by id`,
      [...fileIds],
    )
    for (const subtitle of rows.map(toView)) found.get(subtitle.fileId)?.push(subtitle)
    return found
  },
  /** One subtitle of a file by its public id, or undefined. */
  async one(reader: Reader, fileId: number, publicId: string): Promise<SubtitleView | undefined> {
    const row = await reader.one(
      'select public_id, language, file_id, vtt_key from subtitles where file_id = ? and public_id = ?',
      [fileId, publicId],
    )
    return row && toView(row)
  },
}
