import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import {
  type EntityManager,
  type Logger,
  retryOnConflict,
  type StoragePort,
  transaction,
} from '../../src/kernel/index.js'
import type { FileView } from '../files/index.js'
import { type Subtitle, SubtitleEntity } from './subtitle.entity.js'
import { type Cue, toWebVtt } from './subtitle.format.js'

/** What is kept of an added subtitle file. */
export interface NewSubtitle {
  language: string
  format: 'srt' | 'vtt'
  /** The file as sent. */
  bytes: Buffer
  cues: Cue[]
}

/** The id of a subtitle: `<sha1 of the content>.<language>.<srt|vtt>` (API-DECISIONS). */
export const subtitleId = (input: Pick<NewSubtitle, 'bytes' | 'language' | 'format'>): string =>
  `${createHash('sha1').update(input.bytes).digest('hex')}.${input.language}.${input.format}`

/**
 * Stores a subtitle of a file: the file as sent and its WebVTT version, under the file's
 * storage prefix (deleting the file removes them with it), then its row. The same content in
 * the same language added again changes nothing.
 */
export async function addSubtitle(
  storage: StoragePort,
  em: EntityManager,
  file: FileView,
  input: NewSubtitle,
): Promise<void> {
  const publicId = subtitleId(input)
  const sourceKey = `${file.storagePrefix}subtitles/${publicId}`
  const vttKey = input.format === 'vtt' ? sourceKey : `${file.storagePrefix}subtitles/${publicId}.vtt`
  await storage.write(sourceKey, Readable.from([input.bytes]))
  if (vttKey !== sourceKey) await storage.write(vttKey, Readable.from([Buffer.from(toWebVtt(input.cues))]))
  await retryOnConflict(() =>
    transaction(em, async (tx) => {
      if (await tx.count(SubtitleEntity, { file: file.id, publicId })) return
      tx.create(SubtitleEntity, {
        publicId,
        language: input.language,
        format: input.format,
        vttKey,
        sourceKey,
        file: tx.getReference('StoredFile', file.id) as never,
        createdAt: new Date(),
      })
      await tx.flush()
    }),
  )
}

/** Deletes a subtitle (its row, then its bytes). */
export async function deleteSubtitle(
  storage: StoragePort,
  log: Logger,
  em: EntityManager,
  subtitle: Subtitle,
): Promise<void> {
  await em.nativeDelete(SubtitleEntity, { id: subtitle.id })
  for (const key of new Set([subtitle.vttKey, subtitle.sourceKey])) {
    await storage.delete(key).catch((error: unknown) => log.warn({ err: error, key }, 'subtitle bytes not removed'))
  }
}
