import { EntitySchema, JsonType } from '@mikro-orm/core'
import type { JobState } from './job.types.js'

/**
 * A job, whatever the transport. The kernel's jobs module reads and writes the table with knex
 * (claiming needs `update ... returning` and row locks the ORM does not express); the entity
 * declares the schema, so the migrations are checked against it like every other table.
 */
export interface Job {
  id: number
  /** The declared job type (`files.encode`). */
  type: string
  /** The handler's input (a JSON object). */
  payload: Record<string, unknown>
  state: JobState
  /** Runs started (claims), minus runs a drain put back. */
  attempts: number
  maxAttempts: number
  /** 0 to 100, monotonic within a run. */
  progress: number
  lastError: string | null
  /** The dedupe key given to `enqueue`, kept for the record. */
  key: string | null
  /** What the job works on, as operators name it (a file's slug). */
  subject: string | null
  /**
   * The key while the job is live (waiting or running), null once it is finished. A unique
   * column: NULLs do not collide, so at most one live job per key, on SQLite and PostgreSQL
   * alike (a partial unique index would not be portable), and no lock is needed.
   */
  liveKey: string | null
  /** A waiting job is not claimed before then (backoff after a failure). */
  runAfter: Date
  /** Until when the owner's claim holds; renewed while it runs. Past it, any process takes the job back. */
  leaseUntil: Date | null
  /** `<host>:<pid>:<random>` of the process running it. */
  leaseOwner: string | null
  createdAt: Date
  updatedAt: Date
}

export const JobEntity = new EntitySchema<Job>({
  name: 'Job',
  tableName: 'jobs',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    type: { type: 'string', length: 128 },
    payload: { type: JsonType },
    state: { type: 'string', length: 16 },
    attempts: { type: 'integer' },
    maxAttempts: { type: 'integer' },
    progress: { type: 'float' },
    lastError: { type: 'text', nullable: true },
    key: { type: 'string', length: 255, nullable: true },
    subject: { type: 'string', length: 255, nullable: true },
    liveKey: { type: 'string', length: 255, nullable: true, unique: true },
    runAfter: { type: 'datetime' },
    leaseUntil: { type: 'datetime', nullable: true },
    leaseOwner: { type: 'string', length: 255, nullable: true },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    updatedAt: { type: 'datetime', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
  indexes: [
    // Claiming: the due waiting jobs, oldest due first.
    { properties: ['state', 'runAfter'] },
    // Taking back: the running jobs whose lease expired.
    { properties: ['state', 'leaseUntil'] },
    // `jobs list --file`, `jobs retry <slug>`.
    { properties: ['subject'] },
  ],
})
