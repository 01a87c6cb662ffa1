import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { JobHandler } from '../../src/kernel/index.js'
import { fileQueries } from '../files/index.js'
import { FileGone, MediaFailure, reasonOf } from './encoding-failure.js'
import type { EncodingDeps } from './encoding.deps.js'
import { EncodingRun } from './encoding-run.js'
import { removeObjects } from './media-transfer.js'

/** The job type of an encoding; its key is `encode:<file id>` (one live encoding per file). */
export const ENCODE_JOB = 'encoding.encode'

/** A job id as a folder name (backends choose their ids). */
const folderName = (id: string): string => `job-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`

/**
 * How a run that ended badly ends the job: done when the file is gone; otherwise a failure
 * for the runner, a media failure as it is (the job fails at once), any other with its
 * reason cleaned of local paths (the job retries, or fails on its last attempt). The file's
 * status follows the job (encoding-state.hook.ts).
 */
async function settle(deps: EncodingDeps, fileId: number, work: string, error: unknown): Promise<never | void> {
  if (error instanceof FileGone || !(await fileQueries.fileById(deps.reader, fileId))) {
    deps.log.info({ file: fileId }, 'file deleted during its encoding')
    return
  }
  if (error instanceof MediaFailure) throw error
  throw new Error(`encoding failed: ${reasonOf(error, work)}`, { cause: error })
}

/**
 * The encoding job (`encoding.encode`, payload `{fileId}`): copies the original out of
 * storage, probes it, renders its renditions and snapshots, stores them and records them as
 * the file's set. Idempotent: a run cut short leaves the previous set whole, and the next run
 * removes what it left. Always removes its work folder.
 */
export function encodeJob(deps: EncodingDeps): JobHandler {
  return async (job) => {
    const fileId = Number(job.payload.fileId)
    const file = Number.isSafeInteger(fileId) ? await fileQueries.fileById(deps.reader, fileId) : undefined
    if (!file) return
    const work = join(deps.workRoot, folderName(job.id))
    let run: EncodingRun | undefined
    try {
      // A run of this job that a crash cut short left its folder.
      await rm(work, { recursive: true, force: true })
      await mkdir(work, { recursive: true })
      run = new EncodingRun(deps, job, file, work)
      await run.execute()
    } catch (error) {
      if (run && !run.recorded) {
        await removeObjects(deps.storage, run.runPrefix).catch((cleanup: unknown) =>
          deps.log.warn({ err: cleanup, file: file.id }, 'renditions of a failed run not removed; the next run does'),
        )
      }
      await settle(deps, file.id, work, error)
    } finally {
      await rm(work, { recursive: true, force: true })
    }
  }
}
