import type { EntityManager } from '../db/orm.js'

/**
 * Where a job is in its life. `waiting` (for its turn, or for its next try after a failed or
 * interrupted run) and `running` are live; `succeeded`, `failed` (no attempt left, or a
 * failure retrying cannot mend) and `cancelled` (by an operator) are final.
 */
export type JobState = 'waiting' | 'running' | 'succeeded' | 'failed' | 'cancelled'

/** Every job state, in life order (for flags and validation). */
export const JOB_STATES: readonly JobState[] = ['waiting', 'running', 'succeeded', 'failed', 'cancelled']

/** The live states: a job in one of them holds its key. */
export const LIVE_STATES: readonly JobState[] = ['waiting', 'running']

/** The states an operator may queue again from (`jobs retry`, `POST /job/<id>/retry`). */
export const RETRYABLE_STATES: readonly JobState[] = ['failed', 'cancelled']

/** The states an operator may cancel in (`jobs cancel`, `POST /job/<id>/cancel`): the live ones. */
export const CANCELLABLE_STATES: readonly JobState[] = LIVE_STATES

/** A job as the database keeps it (`mediactl jobs list` shows these). */
export interface JobRecord {
  /** The job's number, as text. */
  id: string
  /** The job type, as declared with `ctx.job(type, handler)` (for example `encoding.encode`). */
  type: string
  /** What the handler needs, JSON-serialisable and small (ids, not data). */
  payload: Record<string, unknown>
  state: JobState
  /** Runs started so far (1 during the first run); a run put back by a shutdown does not count. */
  attempts: number
  /** Runs allowed before the job stays `failed`. */
  maxAttempts: number
  /** Progress of the current (or last) run, 0 to 100, monotonic within a run; 100 once succeeded. */
  progress: number
  /** Why the last run failed, if it did (null once a run succeeded). */
  lastError: string | null
  /** A job with a key is unique among live (waiting or running) jobs: see `enqueue`. */
  key: string | null
  /** What the job works on, as operators name it (a file's slug): `jobs list --file`, `jobs retry <slug>`. */
  subject: string | null
  /** When a waiting job may run next: later than now while it waits out a backoff. */
  runAfter: Date
  createdAt: Date
  /** When its state, attempts or progress last changed. */
  updatedAt: Date
}

/** What a handler gets for one run of a job. */
export interface JobContext {
  id: string
  type: string
  payload: Record<string, unknown>
  /** This run's number, from 1. */
  attempt: number
  /** Runs allowed in all. */
  maxAttempts: number
  /**
   * Records progress, 0 to 100 (clamped; lower values than the last one are ignored). Cheap to
   * call often: stored at most every half second, in the background.
   */
  progress(percent: number): Promise<void>
  /**
   * Aborted when the process stops (the job then runs again later), when the run's time limit
   * passes, when an operator cancels the job, or when the job was lost to another process
   * (its lease expired): stop work, clean up, throw.
   */
  signal: AbortSignal
  /**
   * Throws unless this run still holds its job (not cancelled, not taken back by another
   * process). Call it last in the transaction that settles what the job works on (records its
   * result): on PostgreSQL it locks the job's row until the commit, on SQLite the transaction
   * already holds the write lock, so a cancel or a take-back lands before it or after it, never
   * in between, and a run that lost its job never records a result.
   */
  hold(em: EntityManager): Promise<void>
}

/**
 * Runs one job. Resolving marks it succeeded; throwing makes it run again after a backoff
 * until `maxAttempts` (a `PermanentJobError` fails it at once). Handlers must be idempotent:
 * a run cut short by a crash is run again from the start.
 */
export type JobHandler = (job: JobContext) => Promise<void>

/** A failure that running again cannot mend (an unreadable upload): the job fails at once, no retry left queued. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError'
}

/** A job's state change, as its type's `onState` hook sees it: in the transaction that makes it. */
export interface JobTransition {
  /** The job after the change. */
  job: JobRecord
  /** The transaction: what the hook writes commits (or rolls back) with the job's new state. */
  em: EntityManager
}

/** Options of a job type (`ctx.job(type, handler, options)`). */
export interface JobTypeOptions {
  /**
   * Called in the same transaction as each state change of a job of the type (claimed and
   * running, waiting for a retry or put back, succeeded, failed, cancelled), so what the
   * plugin shows (a file's encoding status) and the job never disagree. Throwing rolls the
   * change back (it is tried again later).
   */
  onState?(change: JobTransition): Promise<void>
  /**
   * Milliseconds to wait before each retry of the type, in order (the n-th retry waits about
   * `retryDelays[n-1]`, ±20 % so that failures spread out; past the end, the last one), instead
   * of the installation's doubling backoff: for work whose retries follow a published schedule
   * (webhook deliveries). Give `maxAttempts` = `retryDelays.length + 1` when enqueueing.
   */
  retryDelays?: readonly number[]
}

/** Options of `enqueue`. */
export interface EnqueueOptions {
  /**
   * At most one live (waiting or running) job per key: enqueueing a key already live answers
   * that job instead of queueing another (for example `encode:<file id>`). At most 255 characters.
   */
  key?: string
  /** Runs allowed (default `jobs.max_attempts`). */
  maxAttempts?: number
  /** What the job works on, as operators name it (a file's slug), at most 255 characters. */
  subject?: string
  /**
   * The transaction to write the job in (the transactional outbox): the job exists if and
   * only if what it works on was committed. Consumers are told once the transaction commits.
   */
  em?: EntityManager
}

/** How `start` runs jobs. */
export interface StartOptions {
  /** Most jobs this process runs at once (at least 1). */
  concurrency: number
  /** Milliseconds one run may last before its signal aborts and the run counts as failed. */
  timeLimitMs: number
  /** Milliseconds before the first retry; the n-th retry waits about `backoffMs · 2^(n-1)` (±25 % jitter). */
  backoffMs: number
}

/** How `stop` ends the runs in flight. */
export interface StopOptions {
  /** Milliseconds to wait for runs (default 10 000); past it they are left to their lease. */
  graceMs?: number
  /** `requeue` (default): abort the runs and put them back; `wait`: let them finish within `graceMs`, then requeue. */
  mode?: 'requeue' | 'wait'
}

/** Filters of `list`. */
export interface JobFilter {
  state?: JobState
  /** Jobs about this subject (a file's slug). */
  subject?: string
  type?: string
  /** Jobs about one of these subjects only (an empty list: none). */
  subjects?: readonly string[]
  /** At most this many, newest first (default 100, at most 10 000). */
  limit?: number
  /** Skips this many first (newest first), for pages. */
  offset?: number
}
