/** Where a job is in its life. */
export type JobState = 'waiting' | 'running' | 'succeeded' | 'failed'

/** A job as the queue keeps it (`mediactl jobs list` shows these). */
export interface JobRecord {
  /** Opaque, unique id (the backend's). */
  id: string
  /** The job type, as declared with `ctx.job(type, handler)` (for example `files.encode`). */
  type: string
  /** What the handler needs, JSON-serialisable and small (ids, not data). */
  payload: Record<string, unknown>
  state: JobState
  /** Runs started so far (1 during the first run). */
  attempts: number
  /** Runs allowed before the job stays `failed`. */
  maxAttempts: number
  /** Progress of the current run, 0 to 100 (monotonic within a run). */
  progress: number
  /** Why the last run failed, if it did. */
  lastError: string | null
  /** A job with a key is unique among live (waiting or running) jobs: see `enqueue`. */
  key: string | null
  createdAt: Date
  updatedAt: Date
}

/** What a handler gets for one run of a job. */
export interface JobContext {
  id: string
  type: string
  payload: Record<string, unknown>
  /** This run's number, from 1. */
  attempt: number
  /** Records progress (0 to 100; lower values than the last one are ignored). */
  progress(percent: number): Promise<void>
  /** Aborted when the process stops or the job's time limit passes: stop work, clean up, throw. */
  signal: AbortSignal
}

/**
 * Runs one job. Resolving marks it succeeded; throwing makes it run again after a backoff
 * until `maxAttempts`, then it stays failed. Handlers must be idempotent: a run cut short by
 * a crash is run again from the start, so a handler clears what an earlier run of the same
 * job may have left before it writes anything (no duplicate renditions).
 */
export type JobHandler = (job: JobContext) => Promise<void>

/** Options of `enqueue`. */
export interface EnqueueOptions {
  /**
   * At most one live (waiting or running) job per key: enqueueing a key already live answers
   * that job instead of queueing another (for example `encode:<file id>`).
   */
  key?: string
  /** Runs allowed (default: the backend's configured default, 3). */
  maxAttempts?: number
}

/**
 * Durable background jobs with retries, progress and a concurrency limit. Plugins declare
 * handlers with `ctx.job(type, handler)` and queue work with `ctx.enqueue(...)`; the kernel
 * hands the handlers to the backend and starts consuming in `serve` (inline backend) or in
 * `mediactl worker` (BullMQ). Provided by `queue-inline` (jobs in the database, run in the
 * serving process) or `queue-bullmq` (Redis).
 */
export interface QueuePort {
  /** Queues a job of `type` (a declared one); resolves once it is stored durably. */
  enqueue(type: string, payload: Record<string, unknown>, options?: EnqueueOptions): Promise<JobRecord>
  /**
   * Starts running jobs of the given handlers, at most `concurrency` at once in this process.
   * Jobs that a stopped or crashed process left `running` run again from the start.
   */
  start(handlers: ReadonlyMap<string, JobHandler>, options: { concurrency: number }): Promise<void>
  /** Stops taking jobs, aborts the running ones (their signal) and waits for them to settle; they run again later. */
  stop(): Promise<void>
  /** Jobs, newest first, optionally of one state; at most `limit` (default 100). */
  list(filter?: { state?: JobState; limit?: number }): Promise<JobRecord[]>
  /** One job, or null. */
  get(id: string): Promise<JobRecord | null>
  /** Queues a failed job again (attempts from 0); throws when it is not failed. */
  retry(id: string): Promise<JobRecord>
  /** Whether `serve` runs the consumers (inline: yes; BullMQ: no, `mediactl worker` does). */
  readonly consumesInServe: boolean
}
