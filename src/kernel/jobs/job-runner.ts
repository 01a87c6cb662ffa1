import type { Knex } from '@mikro-orm/knex'
import type { Logger } from '../log.js'
import type { JobSignal, JobTaker, TakeOutcome } from '../ports/queue.port.js'
import { type JobStore, MAX_ERROR_LENGTH } from './job-store.js'
import type { JobChanges } from './job-changes.js'
import {
  type JobContext,
  type JobHandler,
  type JobRecord,
  PermanentJobError,
  type StartOptions,
  type StopOptions,
} from './job.types.js'

/** Longest wait between two runs of a failing job, whatever the backoff doubling gives. */
const MAX_BACKOFF_MS = 24 * 3600 * 1000
/** Progress is stored at most this often per run (and only once it moved by 1 or more). */
const PROGRESS_EVERY_MS = 500
/** setTimeout's largest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1

/** Why a run's signal was aborted. */
type AbortCause = 'stop' | 'time-limit' | 'lost'

/** One run of a job in this process. */
interface Run {
  job: JobRecord
  /** performance.now() when it started. */
  started: number
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
  aborted?: AbortCause
  /** No more writes: the outcome is being recorded, or `stop` gave up waiting. */
  finished: boolean
  abandoned: boolean
}

/** What the runner needs around it. */
export interface RunnerDeps {
  store: JobStore
  changes: JobChanges
  log: Logger
  /** This process's lease owner. */
  owner: string
  leaseMs: number
  /** Tells consumers of jobs put back or retried (the transport's signal, errors logged). */
  signal(jobs: readonly JobSignal[]): void
  /** The retry delays a type declared (`JobTypeOptions.retryDelays`), if any. */
  retryDelays(type: string): readonly number[] | undefined
  /** A run ended: its type, outcome and duration (metrics). */
  ended(type: string, outcome: string, seconds: number): void
}

/**
 * Runs claimed jobs, the one place that knows a job's life: lease and heartbeat, attempts,
 * exponential backoff with jitter, time limit, cancellation (seen at the heartbeat),
 * progress, and the state machine (docs/operations.md, Jobs). Transports deliver to it
 * through `JobTaker`; every outcome is a guarded state change in the database, in one
 * transaction with the job type's `onState` hook.
 */
export class JobRunner implements JobTaker {
  readonly types: readonly string[]
  private readonly running = new Map<string, Run>()
  private renewTimer: NodeJS.Timeout | undefined
  private stopping = false
  private readonly waiters = new Set<() => void>()

  constructor(
    private readonly deps: RunnerDeps,
    private readonly handlers: ReadonlyMap<string, JobHandler>,
    private readonly options: StartOptions,
  ) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new Error('concurrency is an integer of at least 1')
    }
    this.types = [...handlers.keys()]
    this.renewTimer = setInterval(() => void this.renew(), Math.max(Math.floor(deps.leaseMs / 3), 50))
  }

  /** Runs in flight. */
  get size(): number {
    return this.running.size
  }

  free(): number {
    return this.stopping ? 0 : Math.max(0, this.options.concurrency - this.running.size)
  }

  /** Resolves when a slot frees up (for transports that wait for one). */
  slotFreed(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve))
  }

  async takeDue(count: number): Promise<number> {
    const n = Math.min(count, this.free())
    if (n < 1) return 0
    const claimed = await this.deps.changes.claim(this.deps.owner, this.types, n)
    for (const job of claimed) this.start(job)
    return claimed.length
  }

  async take(id: string): Promise<TakeOutcome> {
    if (this.stopping || this.free() < 1) return { done: false, at: new Date(Date.now() + 1000) }
    const [job] = await this.deps.changes.claim(this.deps.owner, this.types, 1, id)
    if (job) {
      await this.start(job).done
      return { done: true }
    }
    const now = await this.deps.store.get(id)
    if (!now || (now.state !== 'waiting' && now.state !== 'running')) return { done: true }
    if (!this.types.includes(now.type)) {
      // No process of this kind runs it; another may (a worker with more plugins): look again later.
      return { done: false, at: new Date(Date.now() + 60_000) }
    }
    if (now.state === 'waiting') return { done: false, at: now.runAfter }
    // Running elsewhere under a lease: its end (or the lease's expiry, then taken back) decides.
    return { done: false, at: new Date(Date.now() + this.deps.leaseMs) }
  }

  /**
   * Stops taking jobs; `requeue` aborts the runs (their jobs go back to waiting, the cut run
   * not counted), `wait` lets them finish, both within `graceMs`, after which the runs left
   * (handlers ignoring their signal) are abandoned to their lease.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    this.stopping = true
    const graceMs = options.graceMs ?? 10_000
    const runs = [...this.running.values()]
    const settled = (): Promise<boolean> => Promise.all(runs.map((run) => run.done)).then(() => true)
    const within = async (ms: number): Promise<boolean> => {
      let timer: NodeJS.Timeout | undefined
      const result = await Promise.race([
        settled(),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
      ])
      clearTimeout(timer)
      return result
    }
    const deadline = Date.now() + graceMs
    let done = options.mode === 'wait' ? await within(graceMs) : false
    if (!done) {
      for (const run of this.running.values()) {
        this.abort(run, 'stop', new Error('the process is stopping; the job runs again later'))
      }
      done = await within(Math.max(1000, deadline - Date.now()))
    }
    clearInterval(this.renewTimer)
    if (!done) {
      const left = [...this.running.values()]
      for (const run of left) {
        run.abandoned = true
        clearTimeout(run.timeLimit)
        clearTimeout(run.progressTimer)
      }
      this.deps.log.warn(
        { jobs: left.map((run) => run.job.id) },
        'jobs did not stop in time; they run again once their lease expires',
      )
    }
    this.running.clear()
  }

  /** Aborts the run of job `id` in this process, if any (it was cancelled): nothing it does is recorded. */
  lost(id: string, why: string): void {
    const run = this.running.get(id)
    if (run) this.abort(run, 'lost', new Error(why))
  }

  /** Starts a claimed job's run; its outcome is recorded when the handler settles. */
  private start(job: JobRecord): Run {
    const handler = this.handlers.get(job.type)!
    // This process took back its own run (its heartbeat failed past the lease): the old run
    // must not go on beside the new one, nor record anything.
    const earlier = this.running.get(job.id)
    if (earlier) this.abort(earlier, 'lost', new Error('the job was taken back after its lease expired'))
    const run: Run = {
      job,
      started: performance.now(),
      controller: new AbortController(),
      done: Promise.resolve(),
      progress: 0,
      stored: 0,
      lastWrite: 0,
      finished: false,
      abandoned: false,
    }
    this.running.set(job.id, run)
    const { timeLimitMs } = this.options
    run.timeLimit = setTimeout(
      () => this.abort(run, 'time-limit', new Error(`time limit of ${timeLimitMs / 1000} s passed`)),
      Math.min(timeLimitMs, MAX_TIMER_MS),
    )
    const context: JobContext = {
      id: job.id,
      type: job.type,
      payload: job.payload,
      attempt: job.attempts,
      maxAttempts: job.maxAttempts,
      signal: run.controller.signal,
      hold: (em) =>
        this.deps.store.held(
          em.isInTransaction() ? em.getTransactionContext<Knex.Transaction>()! : em.getKnex(),
          job.id,
          this.deps.owner,
        ),
      progress: (percent) => {
        this.report(run, percent)
        return Promise.resolve()
      },
    }
    this.deps.log.info(this.fields(run), 'job started')
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
        this.deps.log.error(
          { err: error, job: job.id },
          'could not record the outcome of a job; it is taken back once its lease expires',
        )
      } finally {
        if (this.running.get(job.id) === run) this.running.delete(job.id)
        for (const wake of this.waiters) wake()
        this.waiters.clear()
      }
    })()
    return run
  }

  private fields(run: Run): Record<string, unknown> {
    return { job: run.job.id, type: run.job.type, subject: run.job.subject, attempt: run.job.attempts }
  }

  private abort(run: Run, why: AbortCause, reason: Error): void {
    if (run.aborted || run.finished) return
    run.aborted = why
    run.controller.abort(reason)
  }

  /** Records the outcome of a run, unless the job is no longer this process's. */
  private async finish(run: Run, failure: { error: unknown } | undefined): Promise<void> {
    run.finished = true
    clearTimeout(run.progressTimer)
    await run.write
    if (run.abandoned || run.aborted === 'lost') {
      this.deps.ended(run.job.type, 'lost', (performance.now() - run.started) / 1000)
      return
    }
    const { changes, owner, log } = this.deps
    const { job } = run
    const fields = this.fields(run)
    // A handler that ignored its time limit and then resolved did not succeed in time.
    if (!failure && run.aborted === 'time-limit') failure = { error: run.controller.signal.reason }
    let after: JobRecord | null
    if (!failure) {
      after = await changes.succeed(job.id, owner)
      if (after) log.info(fields, 'job succeeded')
    } else if (run.aborted === 'stop') {
      // Cut short by a shutdown: not the job's fault, so the run does not count.
      after = await changes.putBack(job.id, owner)
      if (after) log.info(fields, 'job put back')
    } else {
      const reason = (
        run.aborted === 'time-limit' ? (run.controller.signal.reason as Error).message : errorText(failure.error)
      ).slice(0, MAX_ERROR_LENGTH)
      const permanent = failure.error instanceof PermanentJobError && !run.aborted
      if (permanent || job.attempts >= job.maxAttempts) {
        after = await changes.fail(job.id, owner, reason)
        if (after) log.error({ ...fields, err: reason }, permanent ? 'job failed (not retried)' : 'job failed')
      } else {
        const delays = this.deps.retryDelays(job.type)
        const delay = delays?.length
          ? scheduledDelay(delays, job.attempts)
          : backoffDelay(this.options.backoffMs, job.attempts)
        after = await changes.retryLater(job.id, owner, reason, delay)
        if (after) log.warn({ ...fields, err: reason, next_try: after.runAfter }, 'job run failed; retrying later')
      }
    }
    if (!after) log.warn(fields, 'the job was taken back or cancelled before its run ended here')
    else if (after.state === 'waiting') this.deps.signal([after])
    const outcome = !after
      ? 'lost'
      : after.state === 'waiting'
        ? run.aborted === 'stop'
          ? 'put back'
          : 'retried'
        : after.state
    this.deps.ended(job.type, outcome, (performance.now() - run.started) / 1000)
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
    if (run.finished || run.abandoned || run.aborted === 'lost' || run.progressTimer || run.write) return
    if (run.progress - run.stored < 1 && !(run.progress === 100 && run.stored < 100)) return
    const wait = Math.max(0, run.lastWrite + PROGRESS_EVERY_MS - Date.now())
    run.progressTimer = setTimeout(() => {
      run.progressTimer = undefined
      if (run.finished || run.abandoned) return
      const value = run.progress
      run.lastWrite = Date.now()
      run.write = this.deps.store
        .progress(run.job.id, this.deps.owner, value)
        .then(() => {
          run.stored = value
        })
        .catch((error: unknown) => this.deps.log.warn({ err: error, job: run.job.id }, 'progress not stored'))
        .finally(() => {
          run.write = undefined
          this.scheduleProgress(run)
        })
    }, wait)
  }

  /**
   * The heartbeat: extends the lease of every run in flight. A run whose job this process no
   * longer holds (cancelled by an operator, or taken back after its lease expired) is aborted.
   */
  private async renew(): Promise<void> {
    const runs = [...this.running.values()].filter((run) => !run.finished && !run.abandoned)
    if (!runs.length) return
    let held: Set<string>
    try {
      held = await this.deps.store.renew(
        runs.map((run) => run.job.id),
        this.deps.owner,
        this.deps.leaseMs,
      )
    } catch (error) {
      this.deps.log.warn({ err: error }, 'leases not renewed; trying again')
      return
    }
    for (const run of runs) {
      if (held.has(run.job.id) || run.finished) continue
      const now = await this.deps.store.get(run.job.id).catch(() => null)
      const why =
        now?.state === 'cancelled'
          ? 'the job was cancelled'
          : 'the job was taken back by another process (its lease expired)'
      this.deps.log.warn(this.fields(run), `${why}; aborting its run here`)
      this.abort(run, 'lost', new Error(why))
    }
  }
}

/** The wait before the retry that follows attempt `attempt`: `base · 2^(attempt-1)`, ±25 % so that failures spread out. */
export function backoffDelay(baseMs: number, attempt: number, random = Math.random()): number {
  const exact = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS)
  return Math.round(exact * (0.75 + random * 0.5))
}

/** The wait before the retry that follows attempt `attempt` on a declared schedule, ±20 %. */
export function scheduledDelay(delays: readonly number[], attempt: number, random = Math.random()): number {
  const exact = delays[Math.min(Math.max(0, attempt - 1), delays.length - 1)]!
  return Math.round(exact * (0.8 + random * 0.4))
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error)
  return text || 'the handler failed without a message'
}
