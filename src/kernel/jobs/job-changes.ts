import type { Knex } from '@mikro-orm/knex'
import type { EntityManager } from '../db/orm.js'
import type { Logger } from '../log.js'
import { transaction } from '../db/transaction.js'
import { JobQueueError, type JobStore, isUniqueViolation } from './job-store.js'
import { CANCELLABLE_STATES, type JobRecord, type JobTypeOptions, RETRYABLE_STATES } from './job.types.js'

/** How long a job whose state hook failed at its start waits before it is tried again. */
const HOOK_RETRY_MS = 10_000

/** Lease and key cleared: what every change out of `running` or into a final state writes. */
const RELEASED = { lease_owner: null, lease_until: null }

/**
 * Every change of a job's state, each one guarded statement (the state it expects, the lease
 * owner for a run's outcome) in one transaction with the job type's `onState` hook: the job
 * and what its plugin shows (a file's status) commit together or not at all.
 */
export class JobChanges {
  constructor(
    private readonly store: JobStore,
    private readonly em: () => EntityManager,
    private readonly typeOptions: (type: string) => JobTypeOptions,
    /** The lease a claim takes (`jobs.lease`). */
    private readonly leaseMs: number,
    private readonly log: Logger,
  ) {}

  /** Runs `work` in a transaction, then the hooks of the jobs it changed, in it. */
  private async change<T extends JobRecord | JobRecord[] | null>(
    work: (db: Knex.Transaction) => Promise<T>,
  ): Promise<T> {
    return transaction(this.em(), async (tx) => {
      const changed = await work(tx.getTransactionContext<Knex.Transaction>()!)
      for (const job of changed === null ? [] : Array.isArray(changed) ? changed : [changed]) {
        await this.typeOptions(job.type).onState?.({ job, em: tx })
      }
      return changed
    })
  }

  /**
   * Claims up to `count` due jobs of `types` (or job `id` only) for `owner`: they run. One
   * transaction each: a job whose hook fails stays waiting (tried again a little later), it
   * does not hold back the others.
   */
  async claim(owner: string, types: readonly string[], count: number, id?: string): Promise<JobRecord[]> {
    const claimed: JobRecord[] = []
    while (claimed.length < count) {
      let picked: string | undefined
      try {
        const [job] = await this.change(async (db) => {
          const rows = await this.store.claim(db, owner, this.leaseMs, types, 1, id)
          picked = rows[0]?.id
          return rows
        })
        if (!job) break
        claimed.push(job)
      } catch (error) {
        if (picked === undefined) throw error
        this.log.error(
          { err: error, job: picked },
          'a job could not start (its state hook failed); it is tried again later',
        )
        await this.store.delay(picked, HOOK_RETRY_MS)
        if (id !== undefined) break
      }
    }
    return claimed
  }

  succeed(id: string, owner: string): Promise<JobRecord | null> {
    return this.change((db) =>
      this.store.move(
        db,
        id,
        ['running'],
        { state: 'succeeded', progress: 100, last_error: null, live_key: null, ...RELEASED },
        { owner },
      ),
    )
  }

  /** A run cut short by a shutdown: waiting again at once, the run not counted. */
  putBack(id: string, owner: string): Promise<JobRecord | null> {
    return this.change((db) =>
      this.store.move(
        db,
        id,
        ['running'],
        { state: 'waiting', attempts: db.raw('attempts - 1'), run_after: this.store.at(new Date()), ...RELEASED },
        { owner },
      ),
    )
  }

  /** A failed run with attempts left: waiting until `delayMs` from now. */
  retryLater(id: string, owner: string, reason: string, delayMs: number): Promise<JobRecord | null> {
    const runAfter = this.store.at(new Date(Date.now() + delayMs))
    return this.change((db) =>
      this.store.move(
        db,
        id,
        ['running'],
        { state: 'waiting', last_error: reason, run_after: runAfter, ...RELEASED },
        { owner },
      ),
    )
  }

  /** No attempt left, or a failure retrying cannot mend: failed, its key free. */
  fail(id: string, owner: string, reason: string): Promise<JobRecord | null> {
    return this.change((db) =>
      this.store.move(
        db,
        id,
        ['running'],
        { state: 'failed', last_error: reason, live_key: null, ...RELEASED },
        { owner },
      ),
    )
  }

  /**
   * A running job nobody runs any more (its lease expired, its process is gone): waiting
   * again at once (the interrupted run counts), or failed when it was its last attempt (a job
   * that crashes its process must not crash processes forever).
   */
  takeBack(id: string, why: string, deadOwners: readonly string[] = []): Promise<JobRecord | null> {
    const lastError = `interrupted: ${why}`
    // Still stranded when moved: a lease renewed since it was looked at stays with its owner.
    const stranded = (q: Knex.QueryBuilder): void => {
      void q.where((w) => {
        void w.where('lease_until', '<', this.store.at(new Date()))
        if (deadOwners.length) void w.orWhereIn('lease_owner', deadOwners as string[])
      })
    }
    return this.change(async (db) => {
      const failed = await this.store.move(
        db,
        id,
        ['running'],
        { state: 'failed', last_error: lastError, live_key: null, ...RELEASED },
        {
          where: (q) => {
            stranded(q)
            void q.whereRaw('attempts >= max_attempts')
          },
        },
      )
      return (
        failed ??
        this.store.move(
          db,
          id,
          ['running'],
          { state: 'waiting', last_error: lastError, run_after: this.store.at(new Date()), ...RELEASED },
          { where: stranded },
        )
      )
    })
  }

  /**
   * A failed or cancelled job queued again by an operator: waiting, all attempts available.
   * Null for an unknown job; throws when it is live, or when another live job holds its key.
   */
  async retry(id: string): Promise<JobRecord | null> {
    for (;;) {
      const job = await this.store.get(id)
      if (!job) return null
      if (!RETRYABLE_STATES.includes(job.state)) {
        throw new JobQueueError(`job ${id} is ${job.state}: only failed or cancelled jobs can be retried`)
      }
      try {
        const after = await this.change((db) =>
          this.store.move(db, id, RETRYABLE_STATES, {
            state: 'waiting',
            attempts: 0,
            progress: 0,
            live_key: job.key,
            run_after: this.store.at(new Date()),
          }),
        )
        // Another process retried it first: report what it is now.
        if (after) return after
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
        const live = await this.liveHolder(job.key!)
        if (!live) continue
        throw new JobQueueError(
          `job ${live.id} with the same key "${job.key}" is ${live.state}: it does the work already`,
        )
      }
    }
  }

  /** A waiting or running job stopped by an operator: cancelled (a run in flight is aborted at its next heartbeat). */
  async cancel(id: string): Promise<JobRecord | null> {
    const job = await this.store.get(id)
    if (!job) return null
    if (!CANCELLABLE_STATES.includes(job.state)) {
      throw new JobQueueError(`job ${id} is ${job.state}: only waiting or running jobs can be cancelled`)
    }
    const after = await this.change((db) =>
      this.store.move(db, id, CANCELLABLE_STATES, {
        state: 'cancelled',
        last_error: 'cancelled by an operator',
        live_key: null,
        ...RELEASED,
      }),
    )
    return after ?? this.cancel(id)
  }

  private async liveHolder(key: string): Promise<JobRecord | null> {
    const row = (await this.store.table().select('id').where({ live_key: key }).first()) as { id: unknown } | undefined
    return row ? this.store.get(String(row.id)) : null
  }
}
