import type { EntityManager, JobTransition, JobTypeOptions } from '../../src/kernel/index.js'
import { setEncodingState } from '../files/index.js'
import type { EncodingDeps } from './encoding.deps.js'

/**
 * The file side of a job's state, written in the transaction that changes the job (so the
 * status poll, file info and `mediactl jobs list` agree at every moment): claimed → running;
 * waiting for a retry → waiting, with the attempt it waits for and when; failed (no attempt
 * left, or a failure retrying cannot mend) → failed with the reason; cancelled → failed,
 * saying so; succeeded → finished (`finishes`: an encoding; a logo insertion hands over to the
 * encoding it queued). `what` names the work in reasons ("encoding", "logo insertion"). The
 * file's `file.encoded` and `file.encoding_failed` are announced in that same transaction.
 */
export function encodingStateHook(deps: EncodingDeps, what: string, finishes: boolean): JobTypeOptions {
  const { emit } = deps
  const failed = async (em: EntityManager, fileId: number, reason: string) => {
    await setEncodingState(em, fileId, { status: 'failed', error: reason })
    await emit('file.encoding_failed', { em, fileId, reason })
  }
  return {
    async onState({ job, em }: JobTransition) {
      const fileId = Number(job.payload.fileId)
      if (!Number.isSafeInteger(fileId)) return
      switch (job.state) {
        case 'running':
          return setEncodingState(em, fileId, { status: 'running' })
        case 'waiting':
          return setEncodingState(em, fileId, {
            status: 'waiting',
            retry:
              job.attempts > 0
                ? { attempt: job.attempts + 1, maxAttempts: job.maxAttempts, nextTry: job.runAfter }
                : null,
          })
        case 'failed':
          return failed(em, fileId, failureReason(what, job.lastError))
        case 'succeeded':
          // An encoding that succeeded recorded its renditions; a logo insertion handed over to one.
          if (!finishes) return
          await setEncodingState(em, fileId, { status: 'finished' })
          return emit('file.encoded', { em, fileId })
        case 'cancelled':
          return failed(em, fileId, `the ${what} was cancelled by an operator`)
      }
    },
  }
}

/** `encoding_error` of a failed job: the handler's reason, or what stopped the run. */
function failureReason(what: string, lastError: string | null): string {
  if (!lastError) return `the ${what} failed`
  if (lastError.startsWith('time limit')) return `the ${what} was stopped: ${lastError}`
  if (lastError.startsWith('interrupted')) return `the ${what} was ${lastError} on its last attempt`
  return lastError
}
