import type { Knex } from '@mikro-orm/knex'
import type { EntityManager } from '../db/orm.js'
import { afterCommit } from '../db/transaction.js'
import type { Logger } from '../log.js'
import type { JobSignal, QueuePort } from '../ports/queue.port.js'
import { JobChanges } from './job-changes.js'
import type { JobRegistry } from './job-registry.js'
import { JobRunner } from './job-runner.js'
import { JobQueueError, JobStore, MAX_PAYLOAD_BYTES, isJobId } from './job-store.js'
import type { EnqueueOptions, JobFilter, JobRecord, StartOptions, StopOptions } from './job.types.js'
import { isDeadOwner, newLeaseOwner, setLive } from './lease-owner.js'

/** How often a consuming process looks for runs nobody renews (expired leases). */
const REAP_EVERY_MS = 1000
/** Waiting jobs signalled again per reconciliation, soonest due first (push transports). */
const RESIGNAL_BATCH = 5000

/** Settings of the jobs module (the `jobs` config section, in milliseconds). */
export interface JobsSettings {
  maxAttempts: number
  leaseMs: number
  reconcileMs: number
  /** Milliseconds finished jobs stay listed; 0: forever. */
  keepFinishedMs: number
}

/**
 * Finds work that should be scheduled and is not (a file waiting for an encoding no live job
 * does) and schedules it; answers how many jobs it queued. Declared with `ctx.reconcile`.
 */
export type Reconciler = (tools: {
  /** Which of `keys` a live job holds. */
  liveKeys(keys: readonly string[]): Promise<Set<string>>
}) => Promise<number>

/** What plugins reach of the jobs (`ctx.jobs`): the operator's view and actions, as the CLI's commands have them. */
export type JobsAdmin = Pick<Jobs, 'get' | 'list' | 'count' | 'subjects' | 'retry' | 'cancel'>

/** What the jobs module counts (exposed as metrics). */
export interface JobsStats {
  /** Jobs queued by reconcilers: work that had no live job. */
  reconciled: number
  /** Running jobs taken back from processes that stopped renewing their lease. */
  takenBack: number
  /** Signals a transport failed to send (sent again by the reconciler). */
  signalFailures: number
  /** Looks for stranded runs done (about every second while the process runs jobs). */
  looks: number
}

/**
 * The kernel's jobs module: jobs live in the database (`jobs`), written in the caller's
 * transaction (the outbox), run by `JobRunner` as the queue port's transport delivers them,
 * and kept honest by a reconciler (stranded runs taken back, forgotten work scheduled,
 * signals sent again). One implementation whatever the transport.
 */
export class Jobs {
  readonly store: JobStore
  readonly changes: JobChanges
  readonly owner = newLeaseOwner()
  readonly stats: JobsStats = { reconciled: 0, takenBack: 0, signalFailures: 0, looks: 0 }
  private readonly reconcilers: { plugin: string; run: Reconciler }[] = []
  private readonly runEnded: ((type: string, outcome: string, seconds: number) => void)[] = []
  private runner: JobRunner | undefined
  private timer: NodeJS.Timeout | undefined
  private nextReconcile = 0
  private maintaining: Promise<void> | undefined
  private started = false
  private failing = false
  /** Signals under way: a closing process lets them go out first (a CLI `jobs retry` ends at once). */
  private readonly sending = new Set<Promise<void>>()

  constructor(
    private readonly knex: Knex,
    dialect: 'sqlite' | 'postgresql',
    em: () => EntityManager,
    /** The job types the plugins declared. */
    readonly registry: JobRegistry,
    private readonly queue: () => QueuePort | undefined,
    private readonly settings: JobsSettings,
    private readonly log: Logger,
  ) {
    this.store = new JobStore(knex, dialect)
    this.changes = new JobChanges(this.store, em, (type) => registry.options(type), settings.leaseMs, log)
  }

  /** Calls `listener` as each run in this process ends: its type, outcome (succeeded, retried, failed, put back, lost) and duration. */
  onRunEnded(listener: (type: string, outcome: string, seconds: number) => void): void {
    this.runEnded.push(listener)
  }

  /** Declares a plugin's reconciler (run at start and every `jobs.reconcile_interval`). */
  reconcile(plugin: string, run: Reconciler): void {
    this.reconcilers.push({ plugin, run })
  }

  /**
   * Queues a job of a declared type; with `options.em` in a transaction, in that transaction
   * (consumers are told once it commits). A key already live answers that job.
   */
  async enqueue(type: string, payload: Record<string, unknown>, options: EnqueueOptions = {}): Promise<JobRecord> {
    if (!this.registry.has(type)) throw new Error(`unknown job type "${type}": no enabled plugin declares it`)
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
    const subject = options.subject ?? null
    if (subject !== null && (typeof subject !== 'string' || !subject || subject.length > 255)) {
      throw new JobQueueError('a job subject is 1 to 255 characters')
    }
    const maxAttempts = options.maxAttempts ?? this.settings.maxAttempts
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100) {
      throw new JobQueueError('maxAttempts is an integer from 1 to 100')
    }
    const em = options.em
    const db = em?.isInTransaction() ? em.getTransactionContext<Knex.Transaction>()! : this.knex
    const job = { type, payload: JSON.parse(json) as Record<string, unknown>, key, subject, maxAttempts }
    const { record, created } = await this.store.insert(db, job)
    if (created) {
      const tell = (): void => {
        // A test-only fault point (test/e2e/jobs-crash.test.ts): the process dies between the commit and the signal.
        if (process.env.MEDIACTL_TEST_FAULT === 'after-job-commit') process.kill(process.pid, 'SIGKILL')
        this.signal([record])
      }
      if (em) afterCommit(em, tell)
      else tell()
    }
    return record
  }

  get(id: string): Promise<JobRecord | null> {
    return this.store.get(id)
  }

  list(filter: JobFilter = {}): Promise<JobRecord[]> {
    return this.store.list(filter)
  }

  /** How many jobs `filter` matches (the total of a paged list). */
  count(filter: JobFilter = {}): Promise<number> {
    return this.store.count(filter)
  }

  /** The distinct subjects of the jobs `filter` matches. */
  subjects(filter: JobFilter = {}): Promise<string[]> {
    return this.store.subjects(filter)
  }

  /**
   * The job an operator names: a job number, or a subject (a file's slug, its newest job
   * matching `prefer` first, else its newest job). Null when nothing matches.
   */
  async find(name: string, prefer: (job: JobRecord) => boolean = () => true): Promise<JobRecord | null> {
    const about = await this.store.list({ subject: name, limit: 100 })
    const found = about.find(prefer) ?? about[0]
    if (found) return found
    const bare = name.startsWith('#') ? name.slice(1) : name
    return isJobId(bare) ? this.store.get(bare) : null
  }

  /** Queues a failed or cancelled job again, all attempts available (see JobChanges.retry). */
  async retry(id: string): Promise<JobRecord | null> {
    const job = await this.changes.retry(id)
    if (job) this.signal([job])
    return job
  }

  /** Cancels a waiting or running job (a run in flight stops at its next heartbeat). */
  async cancel(id: string): Promise<JobRecord | null> {
    const job = await this.changes.cancel(id)
    // A run in this process stops now; one elsewhere at its next heartbeat.
    if (job) this.runner?.lost(job.id, 'the job was cancelled')
    return job
  }

  /** Tells the transport's consumers; a failure is logged and mended by the reconciler. */
  private signal(jobs: readonly JobSignal[]): void {
    const queue = this.queue()
    if (!queue || !jobs.length) return
    const sent = queue
      .signal(jobs.map(({ id, type, runAfter }) => ({ id, type, runAfter })))
      .catch((error: unknown) => {
        this.stats.signalFailures += 1
        this.log.warn(
          { err: error, jobs: jobs.map((job) => job.id) },
          'consumers not told of jobs; the reconciler tells them again',
        )
      })
      .finally(() => this.sending.delete(sent))
    this.sending.add(sent)
  }

  /** Waits (at most `ms`) for the signals under way, before the transport closes. */
  async flush(ms: number): Promise<void> {
    if (!this.sending.size) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.all([...this.sending]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
    ])
    clearTimeout(timer)
  }

  /**
   * Starts this process's part: the reconciler always (at once, then every
   * `jobs.reconcile_interval`), and running jobs when `consume` (at most `concurrency` at once).
   */
  async start(consume: StartOptions | undefined): Promise<void> {
    if (this.started) throw new Error('jobs are already started in this process')
    this.started = true
    const queue = this.queue()
    setLive(this.owner, true)
    if (consume && queue) {
      this.runner = new JobRunner(
        {
          store: this.store,
          changes: this.changes,
          log: this.log,
          owner: this.owner,
          leaseMs: this.settings.leaseMs,
          signal: (jobs) => this.signal(jobs),
          retryDelays: (type) => this.registry.options(type).retryDelays,
          ended: (type, outcome, seconds) => {
            for (const listener of this.runEnded) listener(type, outcome, seconds)
          },
        },
        this.registry.handlers(),
        consume,
      )
    }
    this.nextReconcile = 0
    // A transport back from an outage may have lost its signals: the full reconciliation sends them again now.
    queue?.onBack?.(() => {
      if (!this.started) return
      this.log.info('the job transport answers again; signalling the waiting jobs again')
      this.nextReconcile = 0
      void this.maintain()
    })
    await this.maintain()
    if (this.runner && queue) await queue.consume(this.runner)
    this.timer = setInterval(() => void this.maintain(), this.runner ? REAP_EVERY_MS : this.settings.reconcileMs)
  }

  /** Stops consuming (see JobRunner.stop) and the reconciler. */
  async stop(options: StopOptions = {}): Promise<void> {
    if (!this.started) return
    clearInterval(this.timer)
    const queue = this.queue()
    const graceMs = options.graceMs ?? 10_000
    const runner = this.runner
    this.runner = undefined
    if (runner && queue) {
      // No new deliveries while the runs end; the transport waits for its deliveries (the runs).
      const delivering = queue.stop(graceMs)
      await runner.stop(options)
      await delivering
    }
    await this.maintaining
    this.started = false
    setLive(this.owner, false)
  }

  /** Whether this process runs jobs. */
  get consuming(): boolean {
    return this.runner !== undefined
  }

  /** One look, never two at once: stranded runs back; every `reconcile_interval` the full reconciliation. */
  private maintain(): Promise<void> {
    this.maintaining ??= this.maintainNow().finally(() => (this.maintaining = undefined))
    return this.maintaining
  }

  private async maintainNow(): Promise<void> {
    try {
      const now = Date.now()
      // Half a tick of slack: a tick landing just before the due time does not wait a whole interval more.
      const full = now >= this.nextReconcile - REAP_EVERY_MS / 2
      await this.takeBackStranded(full)
      if (full) {
        await this.reconcileNow()
        this.nextReconcile = now + this.settings.reconcileMs
      }
      this.stats.looks += 1
      if (this.failing) this.log.info('the jobs module reaches the database again')
      this.failing = false
    } catch (error) {
      if (!this.failing) this.log.error({ err: error }, 'the jobs module cannot reach the database; it keeps trying')
      this.failing = true
      // Once it answers, the full reconciliation at once: runs of processes that died meanwhile (a serve crashed
      // during the outage) go back without waiting for their leases, and the signals missed are sent.
      this.nextReconcile = 0
    }
  }

  /** Runs with an expired lease, and (`withDead`) those of processes of this host known gone, go back to waiting. */
  private async takeBackStranded(withDead: boolean): Promise<void> {
    const dead = withDead ? (await this.store.owners()).filter(isDeadOwner) : []
    const ids = await this.store.stranded(new Date(), dead)
    const back: JobRecord[] = []
    for (const id of ids) {
      const job = await this.changes.takeBack(id, 'the process running it stopped (its lease was not renewed)', dead)
      if (!job) continue
      this.stats.takenBack += 1
      this.log.warn({ job: job.id, type: job.type, subject: job.subject, state: job.state }, 'took back a stranded job')
      if (job.state === 'waiting') back.push(job)
    }
    this.signal(back)
  }

  /** The full reconciliation: plugins' reconcilers, signals sent again, old finished jobs removed. */
  async reconcileNow(): Promise<void> {
    for (const { plugin, run } of this.reconcilers) {
      try {
        const queued = await run({ liveKeys: (keys) => this.store.liveKeys(keys) })
        if (queued) {
          this.stats.reconciled += queued
          this.log.warn({ plugin, jobs: queued }, 'reconciler queued work that had no live job')
        }
      } catch (error) {
        this.log.error({ err: error, plugin }, 'reconciler failed; it runs again at the next reconciliation')
      }
    }
    const queue = this.queue()
    if (queue && !queue.polls) this.signal(await this.store.waiting(RESIGNAL_BATCH))
    if (this.settings.keepFinishedMs > 0) {
      const removed = await this.store.removeFinished(new Date(Date.now() - this.settings.keepFinishedMs))
      if (removed) this.log.info({ removed }, 'removed finished jobs past jobs.keep_finished')
    }
  }
}
