import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { JobContext, JobHandler } from '../../src/kernel/index.js'
import { fileQueries, setEncodingState } from '../files/index.js'
import { FileGone, MediaFailure, reasonOf } from './encoding-failure.js'
import { EncodingRun, type PipelineContext } from './encoding-run.js'
import { removeObjects } from './media-transfer.js'

/** The job type of an encoding; its key is `encode:<file id>` (one live encoding per file). */
export const ENCODE_JOB = 'encoding.encode'

/** A job id as a folder name (backends choose their ids). */
const folderName = (id: string): string => `job-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`

/**
 * Records how a run ended badly, then throws (the queue retries or keeps the job failed),
 * unless the file is gone: then the job is done. A media failure fails the file at once. A
 * run aborted (the process stopping, the job's time limit) leaves the status to the next
 * attempt; one failing otherwise (storage, database) shows `waiting` for it. Both fail the
 * file on the last attempt.
 */
async function settle(
  pc: PipelineContext,
  job: JobContext,
  fileId: number,
  work: string,
  error: unknown,
): Promise<void> {
  if (error instanceof FileGone || !(await fileQueries.fileById(pc.services.reader, fileId))) {
    pc.log.info({ file: fileId }, 'file deleted during its encoding')
    return
  }
  const em = pc.em()
  const last = job.attempt >= pc.maxAttempts
  if (job.signal.aborted) {
    // Stopping: the run starts again later (`running` meanwhile); the time limit: a failure.
    if (last) {
      const reason = reasonOf(job.signal.reason ?? error, work)
      await setEncodingState(em, fileId, { status: 'failed', error: `the encoding was stopped: ${reason}` })
    }
  } else if (error instanceof MediaFailure) {
    await setEncodingState(em, fileId, { status: 'failed', error: error.message })
  } else if (last) {
    await setEncodingState(em, fileId, { status: 'failed', error: `encoding failed: ${reasonOf(error, work)}` })
  } else {
    await setEncodingState(em, fileId, { status: 'waiting' })
  }
  throw error
}

/**
 * The encoding job (`encoding.encode`, payload `{fileId}`): copies the original out of
 * storage, probes it, renders its renditions and snapshots, stores them and records them as
 * the file's set. Idempotent: a run cut short leaves the previous set whole, and the next run
 * removes what it left. Always removes its work folder.
 */
export function encodeJob(pc: PipelineContext): JobHandler {
  return async (job) => {
    const fileId = Number(job.payload.fileId)
    const file = Number.isSafeInteger(fileId) ? await fileQueries.fileById(pc.services.reader, fileId) : undefined
    if (!file) return
    // A media failure of an earlier attempt of this job: running again cannot mend it (a
    // retried job starts at attempt 1 and runs for real).
    if (job.attempt > 1 && file.encodingStatus === 'failed') throw new MediaFailure(file.encodingError ?? 'failed')
    const work = join(pc.workRoot, folderName(job.id))
    let run: EncodingRun | undefined
    try {
      // A run of this job that a crash cut short left its folder.
      await rm(work, { recursive: true, force: true })
      await mkdir(work, { recursive: true })
      run = new EncodingRun(pc, job, file, work)
      await run.execute()
    } catch (error) {
      if (run && !run.recorded) {
        await removeObjects(pc.services.ports.get('storage'), run.runPrefix).catch((cleanup: unknown) =>
          pc.log.warn({ err: cleanup, file: file.id }, 'renditions of a failed run not removed; the next run does'),
        )
      }
      await settle(pc, job, file.id, work, error)
    } finally {
      await rm(work, { recursive: true, force: true })
    }
  }
}
