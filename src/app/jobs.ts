import { type JobRecord, type JobState, type Kernel, type QueuePort, createLogger } from '../kernel/index.js'
import { type BootRequest, bootMigratedKernel } from './boot.js'

/** A job as `mediactl jobs` prints it with `--json`. */
export interface JobView {
  id: string
  type: string
  state: JobState
  attempts: number
  max_attempts: number
  progress: number
  /** The file the job works on: the payload's `fileId` or `file`, if it has one. */
  file: string | null
  key: string | null
  last_error: string | null
  payload: Record<string, unknown>
  run_after: string
  created_at: string
  updated_at: string
}

export interface ListJobsOptions extends BootRequest {
  state?: JobState
  /** At most this many, newest first (default 50). */
  limit?: number
}

export interface RetryJobOptions extends BootRequest {
  id: string
}

/** The file a job is about, from the payload fields the pipeline uses (`fileId`, else `file`). */
export function jobFile(payload: Record<string, unknown>): string | null {
  const value = payload.fileId ?? payload.file
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null
}

export function jobView(job: JobRecord): JobView {
  return {
    id: job.id,
    type: job.type,
    state: job.state,
    attempts: job.attempts,
    max_attempts: job.maxAttempts,
    progress: job.progress,
    file: jobFile(job.payload),
    key: job.key,
    last_error: job.lastError,
    payload: job.payload,
    run_after: job.runAfter.toISOString(),
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
  }
}

function queueOf(kernel: Kernel): QueuePort {
  if (!kernel.services.ports.has('queue')) {
    throw new Error('no queue backend is enabled: add queue-inline (or queue-bullmq) to the "plugins" config key')
  }
  return kernel.services.ports.get('queue')
}

async function withQueue<T>(options: BootRequest, work: (queue: QueuePort) => Promise<T>): Promise<T> {
  const kernel = await bootMigratedKernel({ logger: createLogger('warn', 2), ...options })
  try {
    return await work(queueOf(kernel))
  } finally {
    await kernel.close()
  }
}

/** The jobs of the queue, newest first, optionally of one state. */
export function listJobs(options: ListJobsOptions): Promise<JobView[]> {
  return withQueue(options, async (queue) =>
    (await queue.list({ state: options.state, limit: options.limit ?? 50 })).map(jobView),
  )
}

/** Queues a failed job again (attempts from 0); a serving process picks it up at its next look. */
export function retryJob(options: RetryJobOptions): Promise<JobView> {
  return withQueue(options, async (queue) => {
    const job = await queue.retry(options.id)
    if (!job) throw new Error(`no job "${options.id}": list them with "mediactl jobs list"`)
    return jobView(job)
  })
}
