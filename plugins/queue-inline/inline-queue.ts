import type { Knex } from '@mikro-orm/knex'
import {
  PollLoop,
  type Dialect,
  type EnqueueOptions,
  JOB_STATES,
  type JobContext,
  type JobHandler,
  type JobRecord,
  type JobState,
  type Logger,
  type QueuePort,
  type StartOptions,
  type StopOptions,
  jsonColumn,
} from '../../src/kernel/index.js'
import { isDeadOwner, newLeaseOwner, setLive } from './lease-owner.js'

/** Runs allowed when `enqueue` is given no `maxAttempts` (`ctx.enqueue` always passes `jobs.max_attempts`). */
export const DEFAULT_MAX_ATTEMPTS = 3
/** Largest payload, as JSON text: payloads carry ids, not data. */
export const MAX_PAYLOAD_BYTES = 64 * 1024
/** Longest wait between two runs of a failing job, whatever the backoff doubling gives. */
const MAX_BACKOFF_MS = 24 * 3600 * 1000
/** Progress is stored at most this often per run (and only once it moved by 1 or more). */
const PROGRESS_EVERY_MS = 500
/** How often expired leases are looked for (besides every start). */
const REAP_EVERY_MS = 1000
/** How often old succeeded jobs are removed. */
const CLEANUP_EVERY_MS = 3600 * 1000
/** Longest `last_error` kept, in characters. */
const MAX_ERROR_LENGTH = 4000
/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1

export interface InlineQueueOptions {
  /** The ORM's knex (its pool: SQLite's one connection, or PostgreSQL's). */
  knex: Knex
  dialect: Dialect
  log: Logger
  /** Milliseconds between two looks for due jobs. */
  pollIntervalMs: number
  /** Milliseconds a lease lasts; renewed every third of it. */
  leaseMs: number
  /** Milliseconds succeeded jobs are kept; 0: forever. */
  keepSucceededMs: number
  /** Whether `serve` runs the jobs (`queue-inline.consume_in_serve`, default true); `mediactl worker` always does. */
  consumesInServe?: boolean
}

/** One run of a job in this process. */
interface Run {
  id: number
  type: string
  attempt: number
  maxAttempts: number
  controller: AbortController
  /** Settles once the handler settled and the outcome is recorded. */
  done: Promise<void>
  /** The highest progress reported, and the one stored. */
  progress: number
  stored: number
  lastWrite: number
  progressTimer?: NodeJS.Timeout
  write?: Promise<void>
  timeLimit?: NodeJS.Timeout
  /** Why the signal was aborted, if it was. */
  aborted?: 'stop' | 'time-limit' | 'lost'
  /** No more writes: the outcome is being recorded, or `stop` gave up waiting (the database may be closed). */
  finished: boolean
  abandoned: boolean
}

type Row = Record<string, unknown>

/** Raised when a job cannot be queued or retried as asked. */
export class JobQueueError extends Error {
  override name = 'JobQueueError'
}

/**
 * The inline queue: jobs in the `jobs` table, run by the processes that `start` it (every
 * `mediactl serve`). Each process polls for due jobs and claims them atomically with a lease
 * it renews while they run; a job whose lease expired is taken back by whichever process looks
 * first, so a crash never leaves a job `running`. See docs/decisions.md, Jobs.
 */
export class InlineQueue implements QueuePort {
  readonly consumesInServe: boolean
  /** This queue's lease owner (`<host>:<pid>:<random>`). */
  readonly owner = newLeaseOwner()
  private readonly knex: Knex
  private readonly log: Logger
  private handlers = new Map<string, JobHandler>()
  private startOptions: StartOptions | undefined
  private readonly running = new Map<number, Run>()
  private started = false
  private stopping = false
  private renewTimer: NodeJS.Timeout | undefined
  private stopped: Promise<void> | undefined
  private readonly loop: PollLoop
  private nextReap = 0
  private nextCleanup = 0
  private failing = false

  constructor(private readonly options: InlineQueueOptions) {
    this.loop = new PollLoop(
      () => this.look(),
      options.pollIntervalMs,
      () => this.started && !this.stopping,
    )
    this.consumesInServe = options.consumesInServe ?? true
    this.knex = options.knex
    this.log = options.log
  }

  private get jobs(): Knex.QueryBuilder {
    return this.knex('jobs')
  }

  /** A date as the column stores it: MikroORM keeps SQLite datetimes as epoch milliseconds. */
  private at(date: Date): Date | number {
    return this.options.dialect === 'sqlite' ? date.getTime() : date
  }

  async enqueue(type: string, payload: Record<string, unknown>, options: EnqueueOptions = {}): Promise<JobRecord> {
    if (typeof type !== 'string' || !type || type.length > 128) {
      throw new JobQueueError('a job type is 1 to 128 characters')
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new JobQueueError(`the payload of a "${type}" job must be a JSON object`)
    }
    const json = JSON.stringify(payload)
    if (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES) {
      throw new JobQueueError(`the payload of a "${type}" job is larger than ${MAX_PAYLOAD_BYTES} bytes of JSON`)
    }
    const key = options.key ?? null
    if (key !== null && (typeof key !== 'string' || !key || key.length > 255)) {
      throw new JobQueueError('a job key is 1 to 255 characters')
    }
    const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100) {
      throw new JobQueueError('maxAttempts is an integer from 1 to 100')
    }
    const now = new Date()
    const row = {
      type,
      payload: json,
      state: 'waiting',
      attempts: 0,
      max_attempts: maxAttempts,
      progress: 0,
      last_error: null,
      key,
      live_key: key,
      run_after: this.at(now),
      lease_until: null,
      lease_owner: null,
      created_at: this.at(now),
      updated_at: this.at(now),
    }
    // With a key: insert unless a live job holds it, else answer that job. If that job
    // finishes between the two statements, nothing holds the key any more: insert again.
    for (;;) {
      const inserted = (
        key === null
          ? await this.jobs.insert(row).returning('*')
          : await this.jobs.insert(row).onConflict('live_key').ignore().returning('*')
      ) as Row[]
      if (inserted[0]) {
        this.wake()
        return toRecord(inserted[0])
      }
      const live = (await this.jobs.where({ live_key: key }).first()) as Row | undefined
      if (live) return toRecord(live)
    }
  }

  async list(filter: { state?: JobState; limit?: number } = {}): Promise<JobRecord[]> {
    const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 100), 1), 10_000)
    if (filter.state !== undefined && !JOB_STATES.includes(filter.state)) {
      throw new JobQueueError(`unknown job state "${String(filter.state)}": ${JOB_STATES.join(', ')}`)
    }
    const query = this.jobs.select('*').orderBy('id', 'desc').limit(limit)
    if (filter.state) query.where({ state: filter.state })
    return ((await query) as Row[]).map(toRecord)
  }

  async get(id: string): Promise<JobRecord | null> {
    const row = isJobId(id) ? ((await this.jobs.where({ id: Number(id) }).first()) as Row | undefined) : undefined
    return row ? toRecord(row) : null
  }

  async retry(id: string): Promise<JobRecord | null> {
    for (;;) {
      const job = await this.get(id)
      if (!job) return null
      if (job.state !== 'failed') {
        throw new JobQueueError(`job ${id} is ${job.state}, not failed: only failed jobs can be retried`)
      }
      const now = new Date()
      let changed: number
      try {
        changed = await this.jobs.where({ id: Number(id), state: 'failed' }).update({
          state: 'waiting',
          attempts: 0,
          progress: 0,
          live_key: job.key,
          run_after: this.at(now),
          updated_at: this.at(now),
        })
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
        const live = (await this.jobs.where({ live_key: job.key }).first()) as Row | undefined
        // The holder finished meanwhile: try again.
        if (!live) continue
        throw new JobQueueError(
          `job ${String(live.id)} with the same key "${job.key}" is ${String(live.state)}: it does the work already`,
        )
      }
      // Another process retried it first: report what it is now.
      if (changed === 0) continue
      this.wake()
      return this.get(id)
    }
  }

  async start(handlers: ReadonlyMap<string, JobHandler>, options: StartOptions): Promise<void> {
    if (this.started) throw new Error('the queue is already started')
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new Error('concurrency is an integer of at least 1')
    }
    this.handlers = new Map(handlers)
    this.startOptions = options
    this.started = true
    this.stopping = false
    setLive(this.owner, true)
    const renewEvery = Math.max(Math.floor(this.options.leaseMs / 3), 50)
    this.renewTimer = setInterval(() => void this.renewLeases(), renewEvery)
    try {
      await this.takeBackDeadOwners()
    } catch (error) {
      this.log.warn({ err: error }, 'could not take back the jobs of stopped processes; their leases will expire')
    }
    this.nextReap = 0
    this.nextCleanup = 0
    this.wake()
  }

  stop(options: StopOptions = {}): Promise<void> {
    if (!this.started) return Promise.resolve()
    // A second call while stopping waits for the same stop.
    this.stopped ??= this.drain(options).finally(() => (this.stopped = undefined))
    return this.stopped
  }

  private async drain(options: StopOptions): Promise<void> {
    this.stopping = true
    // A look in progress may be claiming jobs: let it finish, so its runs are aborted too.
    await this.loop.halt()
    const runs = [...this.running.values()]
    for (const run of runs) this.abort(run, 'stop', new Error('the process is stopping; the job runs again later'))
    let timer: NodeJS.Timeout | undefined
    const settled = await Promise.race([
      Promise.all(runs.map((run) => run.done)).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), options.graceMs ?? 10_000))),
    ])
    clearTimeout(timer)
    clearInterval(this.renewTimer)
    if (!settled) {
      const left = [...this.running.values()]
      for (const run of left) {
        run.abandoned = true
        // Its time limit would keep the process alive; the lease expiry takes over.
        clearTimeout(run.timeLimit)
        clearTimeout(run.progressTimer)
      }
      this.log.warn(
        { jobs: left.map((run) => run.id) },
        'jobs did not stop in time; they run again once their lease expires',
      )
    }
    this.running.clear()
    this.started = false
    this.stopping = false
    // Still live while abandoned handlers run: a restart in this process must not take their jobs.
    if (settled) setLive(this.owner, false)
    else void Promise.all(runs.map((run) => run.done)).then(() => !this.started && setLive(this.owner, false))
  }

  /** Looks for due jobs soon (see PollLoop). */
  private wake(): void {
    this.loop.wake()
  }

  /** One look: take back expired leases now and then, remove old succeeded jobs hourly, claim what fits. */
  private async look(): Promise<void> {
    try {
      const now = Date.now()
      if (now >= this.nextReap) {
        this.nextReap = now + REAP_EVERY_MS
        await this.takeBackExpired(new Date(now))
      }
      if (this.options.keepSucceededMs > 0 && now >= this.nextCleanup) {
        this.nextCleanup = now + CLEANUP_EVERY_MS
        await this.removeSucceeded(new Date(now - this.options.keepSucceededMs))
      }
      const free = this.startOptions!.concurrency - this.running.size
      if (free > 0 && !this.stopping) {
        const claimed = await this.claim(free)
        // When every slot is taken, a finishing run wakes the queue for the next one.
        for (const row of claimed) this.run(row)
      }
      if (this.failing) this.log.info('the job queue reaches the database again')
      this.failing = false
    } catch (error) {
      if (!this.failing) this.log.error({ err: error }, 'the job queue cannot reach the database; it keeps trying')
      this.failing = true
    }
  }

  /** Claims up to `count` due jobs of the known types, atomically: each is claimed by one process only. */
  private async claim(count: number): Promise<Row[]> {
    const types = [...this.handlers.keys()]
    if (!types.length) return []
    const now = new Date()
    const marks = types.map(() => '?').join(', ')
    const due = `state = 'waiting' and run_after <= ? and type in (${marks})`
    // A read first: on SQLite an update takes the write lock even when it changes nothing.
    const any = (await this.knex.raw(`select id from jobs where ${due} limit 1`, [this.at(now), ...types])) as unknown
    if (!rowsOf(any).length) return []
    const set = `state = 'running', attempts = attempts + 1, progress = 0, lease_owner = ?, lease_until = ?, updated_at = ?`
    const params = [this.owner, this.at(new Date(now.getTime() + this.options.leaseMs)), this.at(now)]
    // SQLite has one writer at a time: the statement is atomic as it is. PostgreSQL: rows
    // another process is claiming are skipped, not waited for, and the pick is materialized
    // once: inlined in the update, the planner may run it again after the first rows changed,
    // and SKIP LOCKED then skips the rows this statement updated and picks more than `count`.
    const sql =
      this.options.dialect === 'postgresql'
        ? `with picked as materialized (select id from jobs where ${due} order by run_after, id limit ? for update skip locked)
           update jobs set ${set} from picked where jobs.id = picked.id and jobs.state = 'waiting' returning jobs.*`
        : `update jobs set ${set}
           where state = 'waiting' and id in (select id from jobs where ${due} order by run_after, id limit ?)
           returning *`
    const bindings =
      this.options.dialect === 'postgresql'
        ? [this.at(now), ...types, count, ...params]
        : [...params, this.at(now), ...types, count]
    const claimed = rowsOf(await this.knex.raw(sql, bindings)).sort((a, b) => Number(a.id) - Number(b.id))
    const extra = claimed.splice(count)
    if (extra.length) {
      // Never expected (see above); put them back untouched rather than run over the limit.
      await this.jobs
        .whereIn(
          'id',
          extra.map((row) => Number(row.id)),
        )
        .where({ lease_owner: this.owner, state: 'running' })
        .update({ state: 'waiting', attempts: this.knex.raw('attempts - 1'), lease_owner: null, lease_until: null })
    }
    return claimed
  }

  /** Runs a claimed job; its outcome is recorded when the handler settles. */
  private run(row: Row): void {
    const job = toRecord(row)
    const handler = this.handlers.get(job.type)!
    const run: Run = {
      id: Number(row.id),
      type: job.type,
      attempt: job.attempts,
      maxAttempts: job.maxAttempts,
      controller: new AbortController(),
      done: Promise.resolve(),
      progress: 0,
      stored: 0,
      lastWrite: 0,
      finished: false,
      abandoned: false,
    }
    this.running.set(run.id, run)
    const { timeLimitMs } = this.startOptions!
    run.timeLimit = setTimeout(
      () => this.abort(run, 'time-limit', new Error(`time limit of ${timeLimitMs / 1000} s passed`)),
      Math.min(timeLimitMs, MAX_TIMER_MS),
    )
    const context: JobContext = {
      id: job.id,
      type: job.type,
      payload: job.payload,
      attempt: job.attempts,
      signal: run.controller.signal,
      progress: (percent) => {
        this.report(run, percent)
        return Promise.resolve()
      },
    }
    this.log.debug({ job: job.id, type: job.type, attempt: job.attempts }, 'job started')
    run.done = (async () => {
      let failure: { error: unknown } | undefined
      try {
        await handler(context)
      } catch (error) {
        failure = { error }
      }
      clearTimeout(run.timeLimit)
      try {
        await this.finish(run, failure)
      } catch (error) {
        this.log.error({ err: error, job: job.id }, 'could not record the outcome of a job; its lease will expire')
      } finally {
        if (this.running.get(run.id) === run) this.running.delete(run.id)
        this.wake()
      }
    })()
  }

  private abort(run: Run, why: NonNullable<Run['aborted']>, reason: Error): void {
    if (run.aborted || run.finished) return
    run.aborted = why
    run.controller.abort(reason)
  }

  /** Records the outcome of a run, unless the job is no longer this process's. */
  private async finish(run: Run, failure: { error: unknown } | undefined): Promise<void> {
    run.finished = true
    clearTimeout(run.progressTimer)
    await run.write
    if (run.abandoned || run.aborted === 'lost') return
    const now = new Date()
    const mine = (): Knex.QueryBuilder => this.jobs.where({ id: run.id, lease_owner: this.owner, state: 'running' })
    const released = { lease_owner: null, lease_until: null, updated_at: this.at(now) }
    let changed: number
    let outcome: string
    if (!failure) {
      outcome = 'succeeded'
      changed = await mine().update({
        state: 'succeeded',
        progress: 100,
        last_error: null,
        live_key: null,
        ...released,
      })
    } else if (run.aborted === 'stop') {
      // Cut short by a drain: not the job's fault, so the run does not count.
      outcome = 'put back'
      changed = await mine().update({
        state: 'waiting',
        attempts: this.knex.raw('attempts - 1'),
        run_after: this.at(now),
        ...released,
      })
    } else {
      const message = run.aborted === 'time-limit' ? String(run.controller.signal.reason.message) : errorText(failure)
      const lastError = message.slice(0, MAX_ERROR_LENGTH)
      if (run.attempt >= run.maxAttempts) {
        outcome = 'failed'
        changed = await mine().update({
          state: 'failed',
          progress: run.progress,
          last_error: lastError,
          live_key: null,
          ...released,
        })
      } else {
        outcome = 'retried'
        const delay = Math.min(this.startOptions!.backoffMs * 2 ** (run.attempt - 1), MAX_BACKOFF_MS)
        changed = await mine().update({
          state: 'waiting',
          progress: run.progress,
          last_error: lastError,
          run_after: this.at(new Date(now.getTime() + delay)),
          ...released,
        })
      }
    }
    const fields = { job: String(run.id), type: run.type, attempt: run.attempt }
    if (changed === 0) this.log.warn(fields, 'a job was taken back by another process before it finished here')
    else if (outcome === 'failed') this.log.error({ ...fields, err: errorText(failure) }, 'job failed')
    else if (outcome === 'retried') this.log.warn({ ...fields, err: errorText(failure) }, 'job run failed; retrying')
    else this.log.info(fields, `job ${outcome}`)
  }

  /** Keeps the highest progress of a run; stored at most every PROGRESS_EVERY_MS, in the background. */
  private report(run: Run, percent: number): void {
    if (typeof percent !== 'number' || Number.isNaN(percent)) return
    const value = Math.min(100, Math.max(0, percent))
    if (value <= run.progress) return
    run.progress = value
    this.scheduleProgress(run)
  }

  private scheduleProgress(run: Run): void {
    if (run.finished || run.abandoned || run.progressTimer || run.write) return
    if (run.progress - run.stored < 1 && !(run.progress === 100 && run.stored < 100)) return
    const wait = Math.max(0, run.lastWrite + PROGRESS_EVERY_MS - Date.now())
    run.progressTimer = setTimeout(() => {
      run.progressTimer = undefined
      if (run.finished || run.abandoned) return
      const value = run.progress
      run.lastWrite = Date.now()
      run.write = this.jobs
        .where({ id: run.id, lease_owner: this.owner, state: 'running' })
        .where('progress', '<', value)
        .update({ progress: value, updated_at: this.at(new Date()) })
        .then(() => {
          run.stored = value
        })
        .catch((error: unknown) => this.log.warn({ err: error, job: String(run.id) }, 'progress not stored'))
        .finally(() => {
          run.write = undefined
          this.scheduleProgress(run)
        })
    }, wait)
  }

  /** Extends the lease of every run in flight; a run whose job was taken back is aborted. */
  private async renewLeases(): Promise<void> {
    const until = this.at(new Date(Date.now() + this.options.leaseMs))
    for (const run of [...this.running.values()]) {
      if (run.finished || run.abandoned) continue
      try {
        const changed = await this.jobs
          .where({ id: run.id, lease_owner: this.owner, state: 'running' })
          .update({ lease_until: until })
        if (changed === 0 && !run.finished) {
          this.log.warn({ job: String(run.id) }, 'the lease of a running job was lost; aborting it here')
          this.abort(run, 'lost', new Error('the job was taken back by another process (its lease expired)'))
        }
      } catch (error) {
        this.log.warn({ err: error, job: String(run.id) }, 'lease not renewed')
      }
    }
  }

  /** At start: the jobs of processes known dead (see `isDeadOwner`) are taken back at once. */
  private async takeBackDeadOwners(): Promise<void> {
    const rows = (await this.jobs
      .distinct('lease_owner')
      .where({ state: 'running' })
      .whereNotNull('lease_owner')) as Row[]
    const dead = rows.map((row) => String(row.lease_owner)).filter(isDeadOwner)
    if (!dead.length) return
    const taken = await this.takeBack((q) => q.whereIn('lease_owner', dead), 'the process running it stopped')
    if (taken) this.log.info({ jobs: taken, owners: dead }, 'took back the jobs of a stopped process')
  }

  /** Running jobs whose lease expired are taken back: their process stopped renewing it. */
  private async takeBackExpired(now: Date): Promise<void> {
    const expired = (await this.jobs
      .select('id')
      .where({ state: 'running' })
      .where('lease_until', '<', this.at(now))
      .limit(1)) as Row[]
    if (!expired.length) return
    const taken = await this.takeBack(
      (q) => q.where('lease_until', '<', this.at(now)),
      'the process running it stopped renewing its lease',
    )
    if (taken) this.log.warn({ jobs: taken }, 'took back jobs whose lease expired')
  }

  /**
   * Puts running jobs matching `where` back to waiting, or to failed when the interrupted run
   * was their last attempt (a job that crashes its process must not crash it forever).
   */
  private async takeBack(where: (query: Knex.QueryBuilder) => void, why: string): Promise<number> {
    const now = new Date()
    const lastError = `interrupted: ${why}`
    const released = { lease_owner: null, lease_until: null, last_error: lastError, updated_at: this.at(now) }
    const failed = await this.jobs
      .where({ state: 'running' })
      .where(where)
      .whereRaw('attempts >= max_attempts')
      .update({ state: 'failed', live_key: null, ...released })
    const waiting = await this.jobs
      .where({ state: 'running' })
      .where(where)
      .update({ state: 'waiting', run_after: this.at(now), ...released })
    return failed + waiting
  }

  private async removeSucceeded(before: Date): Promise<void> {
    const removed = await this.jobs.where({ state: 'succeeded' }).where('updated_at', '<', this.at(before)).delete()
    if (removed) this.log.info({ removed }, 'removed old succeeded jobs')
  }
}

/** A job row as the port shows it. */
function toRecord(row: Row): JobRecord {
  return {
    id: String(row.id),
    type: String(row.type),
    payload: jsonColumn<Record<string, unknown>>(row.payload),
    state: row.state as JobState,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    progress: Number(row.progress),
    lastError: (row.last_error as string | null) ?? null,
    key: (row.key as string | null) ?? null,
    runAfter: toDate(row.run_after),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  }
}

/** SQLite answers epoch milliseconds; PostgreSQL (as MikroORM sets its driver up) text. */
function toDate(value: unknown): Date {
  if (value instanceof Date) return value
  if (typeof value === 'number') return new Date(value)
  const text = String(value)
  return new Date(/^\d+$/.test(text) ? Number(text) : text)
}

/** Rows of a raw query: SQLite answers them as they are, PostgreSQL in `rows`. */
function rowsOf(result: unknown): Row[] {
  return Array.isArray(result) ? (result as Row[]) : ((result as { rows: Row[] }).rows ?? [])
}

function isJobId(id: string): boolean {
  return typeof id === 'string' && /^[1-9]\d{0,9}$/.test(id) && Number(id) <= 2 ** 31 - 1
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string }).code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

function errorText(failure: { error: unknown } | undefined): string {
  const error = failure?.error
  const text = error instanceof Error ? error.message || error.name : String(error)
  return text || 'the handler failed without a message'
}
