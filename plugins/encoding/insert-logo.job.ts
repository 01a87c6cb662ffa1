import { createReadStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { HttpError, type JobHandler, type LogoPlacement } from '../../src/kernel/index.js'
import { type FileView, fileQueries } from '../files/index.js'
import { FileGone, MediaFailure, reasonOf } from './encoding-failure.js'
import { EncodingProgress } from './encoding-progress.js'
import type { EncodingDeps } from './encoding.deps.js'
import { encoderOf } from './encoding-run.js'
import { copyToLocal } from './media-transfer.js'

/** The job type of a logo insertion; its key is `insertlogo:<new file id>`. */
export const INSERT_LOGO_JOB = 'encoding.insertlogo'

/** What the job needs: the new file, the original video, the logo image, where the logo goes. */
export interface InsertLogoPayload {
  fileId: number
  sourceId: number
  logoId: number
  placement: LogoPlacement
}

/** The new file's progress while the logo goes in (then its encoding starts again from 0). */
const INSERTED = 95

const folderName = (id: string): string => `logo-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`

/** The file a payload names, or a media failure saying which is gone. */
async function input(deps: EncodingDeps, id: unknown, what: string): Promise<FileView> {
  const file = Number.isSafeInteger(Number(id)) ? await fileQueries.fileById(deps.reader, Number(id)) : undefined
  if (!file) throw new MediaFailure(`the ${what} was deleted before the logo was inserted`)
  return file
}

function placementOf(value: unknown): LogoPlacement {
  const p = (value ?? {}) as Partial<Record<keyof LogoPlacement, unknown>>
  return { left: Number(p.left), top: Number(p.top), width: Number(p.width), height: Number(p.height) }
}

/**
 * The logo insertion job (`encoding.insertlogo`, payload `InsertLogoPayload`): copies the
 * original video and the logo's source out of storage, has the encoder lay the logo over
 * every frame, and stores the result as the source of the new file, which is then
 * announced (`file.uploaded`) and encoded like any upload. The original is only read.
 * A media failure fails the job at once, others are retried (the new file shows it, see
 * encoding-state.hook.ts); a new file deleted meanwhile ends the job quietly.
 */
export function insertLogoJob(deps: EncodingDeps): JobHandler {
  return async (job) => {
    const fileId = Number(job.payload.fileId)
    const file = Number.isSafeInteger(fileId) ? await fileQueries.fileById(deps.reader, fileId) : undefined
    // Its bytes are stored: their encoding was queued in the same transaction.
    if (!file || file.size > 0) return
    const work = join(deps.workRoot, folderName(job.id))
    try {
      await rm(work, { recursive: true, force: true })
      await mkdir(work, { recursive: true })
      const source = await input(deps, job.payload.sourceId, 'original video')
      const logo = await input(deps, job.payload.logoId, 'logo')
      const storage = deps.storage
      const video = join(work, 'video')
      const picture = join(work, 'logo')
      await copyToLocal(storage, source.storageKey, video, job.signal)
      await copyToLocal(storage, logo.storageKey, picture, job.signal)
      const encoder = encoderOf(deps)
      const progress = new EncodingProgress(deps, file.id, job)
      const output = join(work, 'with-logo.mp4')
      try {
        const probe = await encoder.probe(video, job.signal)
        await encoder.insertLogo({
          input: video,
          probe,
          logo: picture,
          placement: placementOf(job.payload.placement),
          output,
          signal: job.signal,
          onProgress: (percent) => progress.report((INSERTED * percent) / 100),
        })
      } catch (error) {
        if (job.signal.aborted) throw error
        throw new MediaFailure(`the encoder could not insert the logo: ${reasonOf(error, work)}`)
      }
      await progress.reach(INSERTED)
      job.signal.throwIfAborted()
      try {
        await deps.derived.storeSource(deps.em(), file, createReadStream(output), (tx) => job.hold(tx))
      } catch (error) {
        if (!(error instanceof HttpError)) throw error
        if (error.status === 404) throw new FileGone()
        const why = Object.values(error.fields)[0] ?? error.message
        throw new MediaFailure(`not enough space for the file with the logo: ${why}`)
      }
    } catch (error) {
      if (error instanceof FileGone || !(await fileQueries.fileById(deps.reader, file.id))) {
        deps.log.info({ file: file.id }, 'file deleted during its logo insertion')
        return
      }
      // The file's status follows the job (encoding-state.hook.ts).
      if (error instanceof MediaFailure) throw error
      throw new Error(`the logo insertion failed: ${reasonOf(error, work)}`, { cause: error })
    } finally {
      await rm(work, { recursive: true, force: true })
    }
  }
}
