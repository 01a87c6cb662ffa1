import type { Knex } from '@mikro-orm/knex'
import { jsonColumn } from '../cache/reader.js'
import type { Dialect } from '../db/orm.js'
import { JOB_STATES, type JobFilter, type JobRecord, type JobState } from './job.types.js'
import { UserError } from '../errors.js'

/** Largest payload, as JSON text: payloads carry ids, not data. */
export const MAX_PAYLOAD_BYTES = 64 * 1024
/** Longest `last_error` kept, in characters. */
export const MAX_ERROR_LENGTH = 4000

type Row = Record<string, unknown>

/** Raised when a job cannot be queued, retried or cancelled as asked (the operator's or the caller's mistake). */
export class JobQueueError extends UserError {
  override name = 'JobQueueError'
}

/** A new job, checked. */
export interface NewJob {
  type: string
  payload: Record<string, unknown>
  key: string | null
  subject: string | null
  maxAttempts: number
}

/**
 * The `jobs` table, read and written with knex (claiming needs `update ... returning` and row
 * locks the ORM does not express). Every statement that changes a job's state is guarded by
 * the state it expects (and the lease owner for a run's outcome), so two processes never
 * both move one job. See docs/decisions/0111-claims-leases-and-keys-in-the-database.md.
 */
export class JobStore {
  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
  ) {}

  /** The table, on `db` (a transaction) or the pool. */
  table(db: Knex | Knex.Transaction = this.knex): Knex.QueryBuilder {
    return db('jobs')
  }

  /** A date as the column stores it: MikroORM keeps SQLite datetimes as epoch milliseconds. */
  at(date: Date): Date | number {
    return this.dialect === 'sqlite' ? date.getTime() : date
  }

  /**
   * Inserts a waiting job on `db`; with a key already live, answers that job instead
   * (`created: false`). If the holder finishes between the two statements, inserts again.
   */
  async insert(db: Knex | Knex.Transaction, job: NewJob): Promise<{ record: JobRecord; created: boolean }> {
    const now = this.at(new Date())
    const row = {
      type: job.type,
      payload: JSON.stringify(job.payload),
      state: 'waiting',
      attempts: 0,
      max_attempts: job.maxAttempts,
      progress: 0,
      last_error: null,
      key: job.key,
      live_key: job.key,
      subject: job.subject,
      run_after: now,
      lease_until: null,
      lease_owner: null,
      created_at: now,
      updated_at: now,
    }
    for (;;) {
      const inserted = (
        job.key === null
          ? await this.table(db).insert(row).returning('*')
          : await this.table(db).insert(row).onConflict('live_key').ignore().returning('*')
      ) as Row[]
      if (inserted[0]) return { record: toRecord(inserted[0]), created: true }
      const live = (await this.table(db).where({ live_key: job.key }).first()) as Row | undefined
      if (live) return { record: toRecord(live), created: false }
    }
  }

  async get(id: string, db: Knex | Knex.Transaction = this.knex): Promise<JobRecord | null> {
    if (!isJobId(id)) return null
    const row = (await this.table(db)
      .where({ id: Number(id) })
      .first()) as Row | undefined
    return row ? toRecord(row) : null
  }

  async list(filter: JobFilter = {}): Promise<JobRecord[]> {
    const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 100), 1), 10_000)
    const offset = Math.max(Math.trunc(filter.offset ?? 0), 0)
    const query = this.filtered(filter).select('*').orderBy('id', 'desc').limit(limit).offset(offset)
    return ((await query) as Row[]).map(toRecord)
  }

  /** How many jobs `filter` matches (its limit and offset aside): the total of a paged list. */
  async count(filter: JobFilter = {}): Promise<number> {
    const row = (await this.filtered(filter).count({ n: '*' }).first()) as Row | undefined
    return Number(row?.n ?? 0)
  }

  /** The distinct subjects of the jobs `filter` matches: what a caller checks before listing only some. */
  async subjects(filter: JobFilter = {}): Promise<string[]> {
    const rows = (await this.filtered(filter).distinct('subject').whereNotNull('subject')) as Row[]
    return rows.map((row) => String(row.subject))
  }

  /** The jobs table narrowed by `filter`'s state, subject, type and subjects. */
  private filtered(filter: JobFilter): Knex.QueryBuilder {
    if (filter.state !== undefined && !JOB_STATES.includes(filter.state)) {
      throw new JobQueueError(`unknown job state "${String(filter.state)}": ${JOB_STATES.join(', ')}`)
    }
    const query = this.table()
    if (filter.state) query.where({ state: filter.state })
    if (filter.subject !== undefined) query.where({ subject: filter.subject })
    if (filter.type !== undefined) query.where({ type: filter.type })
    // An empty list matches nothing (knex writes `1 = 0`).
    if (filter.subjects !== undefined) query.whereIn('subject', [...filter.subjects])
    return query
  }

  /** Which of `keys` a live job holds. */
  async liveKeys(keys: readonly string[]): Promise<Set<string>> {
    const live = new Set<string>()
    for (let i = 0; i < keys.length; i += 500) {
      const rows = (await this.table()
        .select('live_key')
        .whereIn('live_key', keys.slice(i, i + 500))) as Row[]
      for (const row of rows) live.add(String(row.live_key))
    }
    return live
  }

  /** Waiting jobs of `types` (all when empty), soonest due first, at most `limit`: what a push transport is told again. */
  async waiting(limit: number): Promise<JobRecord[]> {
    const rows = (await this.table()
      .select('*')
      .where({ state: 'waiting' })
      .orderBy([{ column: 'run_after' }, { column: 'id' }])
      .limit(limit)) as Row[]
    return rows.map(toRecord)
  }

  /**
   * Claims up to `count` due waiting jobs of `types` for `owner`, atomically: each is claimed
   * by one process only. `id` narrows it to one job.
   */
  async claim(
    db: Knex.Transaction,
    owner: string,
    leaseMs: number,
    types: readonly string[],
    count: number,
    id?: string,
  ): Promise<JobRecord[]> {
    if (!types.length || count < 1) return []
    if (id !== undefined && !isJobId(id)) return []
    const now = new Date()
    const marks = types.map(() => '?').join(', ')
    const only = id === undefined ? '' : ' and id = ?'
    const due = `state = 'waiting' and run_after <= ? and type in (${marks})${only}`
    const dueBindings = [this.at(now), ...types, ...(id === undefined ? [] : [Number(id)])]
    // A read first: on SQLite an update takes the write lock even when it changes nothing.
    const any = (await db.raw(`select id from jobs where ${due} limit 1`, dueBindings)) as unknown
    if (!rowsOf(any).length) return []
    const set = `state = 'running', attempts = attempts + 1, progress = 0, lease_owner = ?, lease_until = ?, updated_at = ?`
    const params = [owner, this.at(new Date(now.getTime() + leaseMs)), this.at(now)]
    // SQLite has one writer at a time: the statement is atomic as it is. PostgreSQL: rows
    // another process is claiming are skipped, not waited for, and the pick is materialized
    // once (inlined, the planner may run it again and pick more than `count`).
    const sql =
      this.dialect === 'postgresql'
        ? `with picked as materialized (select id from jobs where ${due} order by run_after, id limit ? for update skip locked)
           update jobs set ${set} from picked where jobs.id = picked.id and jobs.state = 'waiting' returning jobs.*`
        : `update jobs set ${set}
           where state = 'waiting' and id in (select id from jobs where ${due} order by run_after, id limit ?)
           returning *`
    const bindings =
      this.dialect === 'postgresql' ? [...dueBindings, count, ...params] : [...params, ...dueBindings, count]
    return rowsOf(await db.raw(sql, bindings))
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map(toRecord)
  }

  /**
   * Moves job `id` from one of the `from` states with `fields`, when the guard (lease owner,
   * further conditions) still holds; answers the job after the change, or null when it did not hold.
   */
  async move(
    db: Knex | Knex.Transaction,
    id: string,
    from: readonly JobState[],
    fields: Row,
    guard: { owner?: string; where?: (query: Knex.QueryBuilder) => void } = {},
  ): Promise<JobRecord | null> {
    if (!isJobId(id)) return null
    const query = this.table(db)
      .where({ id: Number(id) })
      .whereIn('state', from as JobState[])
    if (guard.owner !== undefined) query.where({ lease_owner: guard.owner })
    guard.where?.(query)
    const rows = (await query.update({ ...fields, updated_at: this.at(new Date()) }).returning('*')) as Row[]
    return rows[0] ? toRecord(rows[0]) : null
  }

  /** Throws unless job `id` is running under `owner`; locks its row (PostgreSQL) until `db`'s transaction ends. */
  async held(db: Knex | Knex.Transaction, id: string, owner: string): Promise<void> {
    const lock = this.dialect === 'postgresql' ? ' for update' : ''
    const rows = rowsOf(await db.raw(`select state, lease_owner from jobs where id = ?${lock}`, [Number(id)]))
    const row = rows[0]
    if (row?.state === 'running' && row.lease_owner === owner) return
    const why = row?.state === 'cancelled' ? 'the job was cancelled' : 'the job is no longer this run’s'
    throw new JobQueueError(`${why}: its result is not recorded`)
  }

  /** Pushes a waiting job's next try `ms` from now. */
  async delay(id: string, ms: number): Promise<void> {
    await this.table()
      .where({ id: Number(id), state: 'waiting' })
      .update({ run_after: this.at(new Date(Date.now() + ms)) })
  }

  /** Raises a run's stored progress (never lowers it). */
  async progress(id: string, owner: string, value: number): Promise<void> {
    await this.table()
      .where({ id: Number(id), lease_owner: owner, state: 'running' })
      .where('progress', '<', value)
      .update({ progress: value, updated_at: this.at(new Date()) })
  }

  /** Extends the lease of `owner`'s running jobs among `ids`; answers the ids it still holds. */
  async renew(ids: readonly string[], owner: string, leaseMs: number): Promise<Set<string>> {
    if (!ids.length) return new Set()
    const numbers = ids.map(Number)
    await this.table()
      .whereIn('id', numbers)
      .where({ lease_owner: owner, state: 'running' })
      .update({ lease_until: this.at(new Date(Date.now() + leaseMs)) })
    const held = (await this.table()
      .select('id')
      .whereIn('id', numbers)
      .where({ lease_owner: owner, state: 'running' })) as Row[]
    return new Set(held.map((row) => String(row.id)))
  }

  /** How many jobs there are by state and type (metrics). */
  async counts(): Promise<{ state: string; type: string; count: number }[]> {
    const rows = (await this.table().select('state', 'type').count({ n: '*' }).groupBy('state', 'type')) as Row[]
    return rows.map((row) => ({ state: String(row.state), type: String(row.type), count: Number(row.n) }))
  }

  /** Ids of running jobs whose lease expired before `now`, or held by one of `owners`. */
  async stranded(now: Date, owners: readonly string[] = []): Promise<string[]> {
    const query = this.table()
      .select('id')
      .where({ state: 'running' })
      .where((q) => {
        q.where('lease_until', '<', this.at(now))
        if (owners.length) q.orWhereIn('lease_owner', owners as string[])
      })
      .limit(1000)
    return ((await query) as Row[]).map((row) => String(row.id))
  }

  /** Owners holding running jobs. */
  async owners(): Promise<string[]> {
    const rows = (await this.table()
      .distinct('lease_owner')
      .where({ state: 'running' })
      .whereNotNull('lease_owner')) as Row[]
    return rows.map((row) => String(row.lease_owner))
  }

  /** Removes finished jobs last changed before `before`; answers how many. */
  async removeFinished(before: Date): Promise<number> {
    return this.table()
      .whereIn('state', ['succeeded', 'failed', 'cancelled'])
      .where('updated_at', '<', this.at(before))
      .delete()
  }
}

/** A job row as the kernel shows it. */
export function toRecord(row: Row): JobRecord {
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
    subject: (row.subject as string | null) ?? null,
    runAfter: toDate(row.run_after),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  }
}

/** SQLite answers epoch milliseconds; PostgreSQL (as MikroORM sets its driver up) text or dates. */
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

/** Whether `id` can be a job's number. */
export function isJobId(id: string): boolean {
  return typeof id === 'string' && /^[1-9]\d{0,9}$/.test(id) && Number(id) <= 2 ** 31 - 1
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string }).code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}
