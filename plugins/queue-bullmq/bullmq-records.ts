import type { Job } from 'bullmq'
import type { JobRecord, JobState } from '../../src/kernel/index.js'

/** The states `Job.getState()` answers, besides `unknown`. */
export type BullmqState =
  'waiting' | 'wait' | 'paused' | 'prioritized' | 'delayed' | 'waiting-children' | 'active' | 'completed' | 'failed'

/** BullMQ's states as the port's: every kind of waiting (backoff included) is `waiting`. */
export const STATE_OF: Record<BullmqState, JobState> = {
  waiting: 'waiting',
  wait: 'waiting',
  paused: 'waiting',
  prioritized: 'waiting',
  delayed: 'waiting',
  'waiting-children': 'waiting',
  active: 'running',
  completed: 'succeeded',
  failed: 'failed',
}

/** The Redis structures (`queue.keys` names) holding the jobs of each port state; sorted sets or lists. */
export const SETS: Record<JobState, { name: string; sorted: boolean }[]> = {
  waiting: [
    { name: 'wait', sorted: false },
    { name: 'paused', sorted: false },
    { name: 'prioritized', sorted: true },
    { name: 'delayed', sorted: true },
    { name: 'waiting-children', sorted: true },
  ],
  running: [{ name: 'active', sorted: false }],
  succeeded: [{ name: 'completed', sorted: true }],
  failed: [{ name: 'failed', sorted: true }],
}

/**
 * The BullMQ queue of a job type. Queue names cannot hold `:`, which job types may: it becomes
 * `+`, which types never hold, so two types never share a queue.
 */
export function queueName(queue: string, type: string): string {
  return `${queue}/${type.replaceAll(':', '+')}`
}

/** The BullMQ job id of a port id (`42` → `j42`; BullMQ refuses custom ids that are integers), or null. */
export function bullmqId(id: string): string | null {
  return typeof id === 'string' && /^[1-9]\d{0,15}$/.test(id) ? `j${id}` : null
}

/** The port id of a BullMQ job id (`j42` → `42`), or null for an id this backend did not make. */
export function publicId(jobId: string): string | null {
  const match = /^j([1-9]\d{0,15})$/.exec(jobId)
  return match ? match[1]! : null
}

/** A job as the port shows it, in `state`; `runAfter` (ms) when it waits out a backoff. */
export function toRecord(job: Job, state: JobState, runAfter?: number): JobRecord {
  const createdAt = job.timestamp
  const progress = Number(job.progress)
  return {
    id: publicId(job.id!) ?? job.id!,
    type: job.name,
    payload: job.data as Record<string, unknown>,
    state,
    attempts: job.attemptsStarted ?? 0,
    maxAttempts: job.opts.attempts ?? 1,
    // BullMQ keeps the last progress and error of a job that then succeeds; the port does not.
    progress: state === 'succeeded' ? 100 : Number.isFinite(progress) ? Math.min(100, Math.max(0, progress)) : 0,
    lastError: state === 'succeeded' ? null : job.failedReason || null,
    key: job.deduplicationId ?? null,
    runAfter: new Date(runAfter ?? createdAt),
    createdAt: new Date(createdAt),
    updatedAt: new Date(Math.max(createdAt, job.processedOn ?? 0, job.finishedOn ?? 0)),
  }
}
