import {
  CANCELLABLE_STATES,
  type JobRecord,
  type JobState,
  type Jobs,
  type Kernel,
  RETRYABLE_STATES,
  UserError,
} from '../kernel/index.js'
import { type BootRequest, withKernel } from './boot.js'

/** A job as `mediactl jobs` prints it with `--json`. */
export interface JobView {
  id: string
  type: string
  state: JobState
  /** What the job works on, as operators name it: a file's slug. */
  file: string | null
  /** Runs started (during a run, its number). */
  attempts: number
  max_attempts: number
  progress: number
  last_error: string | null
  /** When a waiting job runs next (its next try, after a failed or interrupted run); null otherwise. */
  next_try: string | null
  key: string | null
  payload: Record<string, unknown>
  created_at: string
  updated_at: string
}

export interface ListJobsOptions extends BootRequest {
  state?: JobState
  /** Jobs of this file (its slug; not `file`, which names the configuration file). */
  slug?: string
  /** At most this many, newest first (default 50). */
  limit?: number
}

export interface JobActionOptions extends BootRequest {
  /** A file's slug (its newest job fitting the action) or a job's number. */
  target: string
}

export function jobView(job: JobRecord): JobView {
  return {
    id: job.id,
    type: job.type,
    state: job.state,
    file: job.subject,
    attempts: job.attempts,
    max_attempts: job.maxAttempts,
    progress: job.progress,
    last_error: job.lastError,
    next_try: job.state === 'waiting' ? job.runAfter.toISOString() : null,
    key: job.key,
    payload: job.payload,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
  }
}

async function withJobs<T>(options: BootRequest, work: (jobs: Jobs, kernel: Kernel) => Promise<T>): Promise<T> {
  return withKernel(options, async (kernel) => {
    if (!kernel.services.ports.has('queue')) {
      throw new UserError('no queue backend is enabled: add queue-inline (or queue-bullmq) to the "plugins" config key')
    }
    return work(kernel.jobs, kernel)
  })
}

/** The jobs, newest first, optionally of one state or one file. */
export function listJobs(options: ListJobsOptions): Promise<JobView[]> {
  return withJobs(options, async (jobs) =>
    (await jobs.list({ state: options.state, subject: options.slug, limit: options.limit ?? 50 })).map(jobView),
  )
}

/** The job `target` names, or an error saying how to find one. */
async function named(jobs: Jobs, target: string, prefer: (job: JobRecord) => boolean): Promise<JobRecord> {
  const job = await jobs.find(target, prefer)
  if (!job)
    throw new UserError(`no job of a file "${target}" and no job number ${target}: list them with "mediactl jobs list"`)
  return job
}

/** Queues a failed or cancelled job again (attempts from 0); a consuming process runs it at once. */
export function retryJob(options: JobActionOptions): Promise<JobView> {
  return withJobs(options, async (jobs) => {
    const job = await named(jobs, options.target, (j) => RETRYABLE_STATES.includes(j.state))
    const retried = await jobs.retry(job.id)
    if (!retried) throw new UserError(`job ${job.id} is gone: list them with "mediactl jobs list"`)
    return jobView(retried)
  })
}

/** Cancels a waiting or running job; a run in flight stops at its next heartbeat (a third of `jobs.lease`). */
export function cancelJob(options: JobActionOptions): Promise<JobView> {
  return withJobs(options, async (jobs) => {
    const job = await named(jobs, options.target, (j) => CANCELLABLE_STATES.includes(j.state))
    const cancelled = await jobs.cancel(job.id)
    if (!cancelled) throw new UserError(`job ${job.id} is gone: list them with "mediactl jobs list"`)
    return jobView(cancelled)
  })
}
