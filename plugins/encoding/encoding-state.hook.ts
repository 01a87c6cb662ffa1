import type { JobTransition, JobTypeOptions } from '../../src/kernel/index.js'
import { setEncodingState } from '../files/index.js'

/**
 * The file side of a job's state, written in the transaction that changes the job (so the
 * status poll, file info and `mediactl jobs list` agree at every moment): claimed → running;
 * waiting for a retry → waiting, with the attempt it waits for and when; failed (no attempt
 * left, or a failure retrying cannot mend) → failed with the reason; cancelled → failed,
 * saying so; succeeded → finished (`finishes`: an encoding; a logo insertion hands over to the
 * encoding it queued). `what` names the work in reasons ("encoding", "logo insertion").
 */
export function encodingStateHook(what: string, finishes: boolean): JobTypeOptions {
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
          return setEncodingState(em, fileId, { status: 'failed', error: failureReason(what, job.lastError) })
        case 'succeeded':
          // An encoding that succeeded recorded its renditions; a logo insertion handed over to one.
          return finishes ? setEncodingState(em, fileId, { status: 'finished' }) : undefined
        case 'cancelled':
          return setEncodingState(em, fileId, { status: 'failed', error: `the ${what} was cancelled by an operator` })
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
