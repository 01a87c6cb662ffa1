/** Where a job is in its life: `waiting` and `running` are live, `succeeded` and `failed` are final. */
export type JobState = 'waiting' | 'running' | 'succeeded' | 'failed'

/** Every job state, in life order (for flags and validation). */
export const JOB_STATES: readonly JobState[] = ['waiting', 'running', 'succeeded', 'failed']

/** A job as the queue keeps it (`mediactl jobs list` shows these). */
export interface JobRecord {
  /** Opaque, unique id (the backend's). */
  id: string
  /** The job type, as declared with `ctx.job(type, handler)` (for example `files.encode`). */
  type: string
  /** What the handler needs, JSON-serialisable and small (ids, not data). */
  payload: Record<string, unknown>
  /** Where the job is: waiting (for its turn or its backoff), running, or finished. */
  state: JobState
  /** Runs started so far (1 during the first run); an interrupted drain does not count. */
  attempts: number
  /** Runs allowed before the job stays `failed`. */
  maxAttempts: number
  /** Progress of the current (or last) run, 0 to 100, monotonic within a run; 100 once succeeded. */
  progress: number
  /** Why the last run failed, if it did (null once a run succeeded). */
  lastError: string | null
  /** A job with a key is unique among live (waiting or running) jobs: see `enqueue`. */
  key: string | null
  /** When a waiting job may run next: later than now while it backs off after a failure. */
  runAfter: Date
  /** When it was queued. */
  createdAt: Date
  /** When its state, attempts or progress last changed. */
  updatedAt: Date
}

/** What a handler gets for one run of a job. */
export interface JobContext {
  /** The job's id (as in `JobRecord.id`). */
  id: string
  /** The job's type. */
  type: string
  /** The payload given to `enqueue`. */
  payload: Record<string, unknown>
  /** This run's number, from 1. */
  attempt: number
  /**
   * Records progress, 0 to 100 (clamped; lower values than the last one are ignored). Cheap to
   * call often: the backend stores it at most every half second, in the background, so it
   * never waits for the database (safe inside a transaction, even on SQLite's one connection).
   */
  progress(percent: number): Promise<void>
  /**
   * Aborted when the process stops (the job then runs again later), when the run's time limit
   * passes, or when the backend lost the job to another process: stop work, clean up, throw.
   */
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
   * that job instead of queueing another (for example `encode:<file id>`). Once the job is
   * finished, the same key queues a new job. At most 255 characters.
   */
  key?: string
  /** Runs allowed (through `ctx.enqueue`: `jobs.max_attempts`, 3 by default; the backend's 3 otherwise). */
  maxAttempts?: number
}

/** How `start` runs jobs. */
export interface StartOptions {
  /** Most jobs this process runs at once (at least 1). */
  concurrency: number
  /** Milliseconds one run may last before its signal aborts and the run counts as failed (`jobs.time_limit`). */
  timeLimitMs: number
  /** Milliseconds before the first retry of a failed run; the n-th retry waits `backoffMs · 2^(n-1)` (`jobs.backoff`). */
  backoffMs: number
}

/** How `stop` ends the runs in flight. */
export interface StopOptions {
  /**
   * Milliseconds to wait for aborted handlers to settle (default 10 000). A handler that
   * ignores its signal is left behind: its job stays `running` under this process's lease
   * and is taken back by another process once the lease expires.
   */
  graceMs?: number
}

/**
 * Durable background jobs with retries, progress and a concurrency limit. Plugins declare
 * handlers with `ctx.job(type, handler)` and queue work with `ctx.enqueue(...)`; the kernel
 * hands the handlers to the backend and starts consuming in `serve` (inline backend) or in
 * `mediactl worker` (BullMQ). Provided by `queue-inline` (jobs in the database, run in the
 * serving process) or `queue-bullmq` (Redis).
 *
 * Guarantees every backend keeps (test/conformance/queue.conformance.ts): a stored job runs
 * until it succeeds or uses its attempts; a run that a crash or a stop cut short runs again;
 * two processes never run the same job at once; a job never stays `running` once nobody runs it.
 */
export interface QueuePort {
  /**
   * Queues a job of `type`; resolves once it is stored durably (a consumer may already run
   * it). Called by `ctx.enqueue`, which checks that the type is declared. Throws for a payload
   * that is not a JSON object or is larger than 64 KiB.
   */
  enqueue(type: string, payload: Record<string, unknown>, options?: EnqueueOptions): Promise<JobRecord>
  /**
   * Starts running waiting jobs of the given types (the others stay waiting for a process
   * that knows them), at most `options.concurrency` at once in this process. Jobs that a
   * stopped or crashed process left `running` run again from the start. Called once by the
   * kernel (`serve` or `mediactl worker`); again only after `stop`.
   */
  start(handlers: ReadonlyMap<string, JobHandler>, options: StartOptions): Promise<void>
  /**
   * Stops taking jobs, aborts the running ones (their signal) and waits for them to settle;
   * they run again later (the interrupted run does not count as an attempt). Called by
   * `Kernel.close()` before the database closes; does nothing when not started.
   */
  stop(options?: StopOptions): Promise<void>
  /** Jobs, newest first, optionally of one state; at most `limit` (default 100). */
  list(filter?: { state?: JobState; limit?: number }): Promise<JobRecord[]>
  /** One job, or null. */
  get(id: string): Promise<JobRecord | null>
  /**
   * Queues a failed job again: waiting, attempts from 0, at once. Resolves null when there is
   * no such job; throws when it is not failed, or when another live job holds its key.
   */
  retry(id: string): Promise<JobRecord | null>
  /** Whether `serve` runs the consumers (inline: yes; BullMQ: no, `mediactl worker` does). */
  readonly consumesInServe: boolean
}
