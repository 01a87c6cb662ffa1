import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Knex } from '@mikro-orm/knex'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../src/catalog.js'
import {
  type JobContext,
  type JobHandler,
  type JobRecord,
  type JobTransition,
  type JobTypeOptions,
  Kernel,
  type Logger,
  MAX_PAYLOAD_BYTES,
  PermanentJobError,
  type PluginDefinition,
  createLogger,
  definePlugin,
  loadConfig,
  transaction,
} from '../../src/kernel/index.js'
import { freshDatabase } from '../helpers/database.js'
import { waitFor } from '../helpers/wait.js'

/**
 * The jobs guarantees (src/kernel/ports/queue.port.ts, src/kernel/jobs/) as tests, through the
 * kernel (`kernel.jobs`, `kernel.startJobs`), run once per transport (queue-inline,
 * queue-bullmq). Every kernel of a suite runs on one database (and one Redis prefix): a second
 * kernel is another process. Each test uses job types of its own, declared by the kernels it
 * boots (a kernel runs the types it declares, so jobs other tests left never run here).
 */

/** A queue transport under test: the plugin to enable and its configuration. */
export interface Transport {
  /** The queue plugin (`queue-inline`, `queue-bullmq`). */
  plugin: string
  /** Configuration merged over every kernel's (the transport's section, `redis_url`). */
  config: Record<string, unknown>
  /** Tidies up what the transport keeps outside the database (Redis keys), after the suite. */
  cleanup?(): Promise<void>
}

/** `jobs.lease` in every kernel of the suite, in milliseconds: heartbeats every third of it. */
export const LEASE_MS = 1000

/** What every kernel of the suite is configured with (before the transport's and the test's). */
const SUITE_CONFIG = {
  log_level: 'silent',
  // kernel.close() gives up on handlers ignoring their signal after this long.
  http: { shutdown_timeout: 1 },
  jobs: {
    lease: LEASE_MS / 1000,
    backoff: 0.2,
    time_limit: 30,
    max_attempts: 3,
    reconcile_interval: 60,
    shutdown: 'requeue',
  },
}

export interface BootOptions {
  /** `onState` hooks, by job type. */
  hooks?: Record<string, NonNullable<JobTypeOptions['onState']>>
  /** Declared retry delays (`JobTypeOptions.retryDelays`), by job type. */
  delays?: Record<string, readonly number[]>
  /** Configuration merged over the suite's (for example `{ jobs: { backoff: 1 } }`). */
  config?: Record<string, unknown>
  logger?: Logger
}

/** A handler for kernels that only queue a type: running it is a test failure. */
export const idle: JobHandler = (job) =>
  Promise.reject(new Error(`job ${job.id} was run by a process that must not run it`))

/** The ports every kernel needs, as stand-ins: nothing here authenticates or stores files. */
const base = definePlugin({
  name: 'conformance-base',
  provides: ['credentials', 'accessGrants', 'storage'],
  register(ctx) {
    ctx.provide('credentials', { findByUsername: () => Promise.resolve(null) } as never)
    ctx.provide('accessGrants', {} as never)
    ctx.provide('storage', {} as never)
  },
})

/** The test plugin: declares the given job types, with their hooks. */
function jobsPlugin(
  jobs: Record<string, JobHandler>,
  hooks: BootOptions['hooks'] = {},
  delays: BootOptions['delays'] = {},
): PluginDefinition {
  return definePlugin({
    name: 'conformance',
    register(ctx) {
      for (const [type, handler] of Object.entries(jobs)) {
        const onState = hooks[type]
        const retryDelays = delays[type]
        ctx.job(type, handler, { ...(onState ? { onState } : {}), ...(retryDelays ? { retryDelays } : {}) })
      }
    },
  })
}

type Section = Record<string, unknown>
const isSection = (value: unknown): value is Section =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)

function merge(into: Section, from: Section): Section {
  const out: Section = { ...into }
  for (const [key, value] of Object.entries(from)) {
    const current = out[key]
    out[key] = isSection(value) && isSection(current) ? merge(current, value) : value
  }
  return out
}

/**
 * Time as a subject, never as a wait: how long a run works, how long a negative observation
 * lasts, a bound that catches a hang. Waiting for something uses `until`.
 */
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `check` answers something truthy (`waitFor`), and answers it; fails naming `what`. */
export async function until<T>(
  what: string,
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<NonNullable<T>> {
  let value: T | undefined
  await waitFor(async () => Boolean((value = await check())), {
    timeout: timeoutMs,
    interval: intervalMs,
    message: what,
  })
  return value as NonNullable<T>
}

/** A promise settled from the test. */
export function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

/** Rejects with the signal's reason once it aborts: what a well-behaved handler does. */
function abortion(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error)
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true })
  })
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.on('exit', resolve))
  return child.pid!
}

/**
 * Processes on one database (and one transport backend): kernels booted with the test's job
 * types, an admin kernel (no job types, never started) to look at and tidy the jobs table.
 */
export class Cluster {
  private readonly kernels: Kernel[] = []
  private readonly gates: (() => void)[] = []

  private constructor(
    private readonly transport: Transport,
    private readonly dataDir: string,
    private readonly database: { url: string; drop(): Promise<void> },
    /** A kernel with no job types: reads and tidies the jobs table. */
    readonly admin: Kernel,
  ) {}

  static async open(transport: Transport): Promise<Cluster> {
    const dataDir = mkdtempSync(join(tmpdir(), 'mediactl-jobs-conformance-'))
    const database = await freshDatabase()
    try {
      const admin = await Cluster.bootOn(transport, dataDir, database.url, {}, {})
      await admin.migrator.up()
      return new Cluster(transport, dataDir, database, admin)
    } catch (error) {
      await database.drop()
      rmSync(dataDir, { recursive: true, force: true })
      throw error
    }
  }

  private static async bootOn(
    transport: Transport,
    dataDir: string,
    url: string,
    jobs: Record<string, JobHandler>,
    options: BootOptions,
  ): Promise<Kernel> {
    const plugins = [base, jobsPlugin(jobs, options.hooks, options.delays)] as PluginDefinition<never>[]
    const overrides = merge(merge(merge(SUITE_CONFIG, transport.config), options.config ?? {}), {
      data_dir: dataDir,
      database: { url },
      plugins: ['conformance-base', transport.plugin, 'conformance'],
    })
    const { config } = loadConfig({ env: {}, cwd: dataDir, overrides })
    return Kernel.boot({
      config,
      catalog: {
        names: [...CATALOG.names, ...plugins.map((plugin) => plugin.name)],
        load: async (names) => [
          ...(await CATALOG.load(names)),
          ...plugins.filter((plugin) => names.includes(plugin.name)),
        ],
      },
      logger: options.logger ?? createLogger('silent'),
    })
  }

  /** A process on the database declaring `jobs` (its handlers, by type); closed after the test. */
  async boot(jobs: Record<string, JobHandler>, options: BootOptions = {}): Promise<Kernel> {
    const kernel = await Cluster.bootOn(this.transport, this.dataDir, this.database.url, jobs, options)
    this.kernels.push(kernel)
    return kernel
  }

  /** A gate a handler waits at; opened by the test, or after it. */
  gate(): { promise: Promise<void>; resolve(): void } {
    const gate = deferred()
    this.gates.push(gate.resolve)
    return gate
  }

  get knex(): Knex {
    return this.admin.em().getKnex()
  }

  get sqlite(): boolean {
    return this.admin.config.database.url === ''
  }

  get(id: string): Promise<JobRecord | null> {
    return this.admin.jobs.get(id)
  }

  /** The job's row, as stored (lease owner and expiry included). */
  async row(id: string): Promise<Record<string, unknown>> {
    return (await this.knex('jobs')
      .where({ id: Number(id) })
      .first()) as Record<string, unknown>
  }

  /** Changes a job's row behind the kernels' backs (dates as the column stores them). */
  async setRow(id: string, fields: Record<string, unknown>): Promise<void> {
    const stored = Object.fromEntries(
      Object.entries(fields).map(([key, value]) => [
        key,
        value instanceof Date && this.sqlite ? value.getTime() : value,
      ]),
    )
    await this.knex('jobs')
      .where({ id: Number(id) })
      .update(stored)
  }

  /** After each test: gates opened, kernels closed, the jobs still live cancelled (nobody runs them later). */
  async tidy(): Promise<void> {
    for (const open of this.gates.splice(0)) open()
    for (const kernel of this.kernels.splice(0).reverse()) await kernel.close()
    const live = [
      ...(await this.admin.jobs.list({ state: 'waiting', limit: 10_000 })),
      ...(await this.admin.jobs.list({ state: 'running', limit: 10_000 })),
    ]
    for (const job of live) await this.admin.jobs.cancel(job.id).catch(() => undefined)
  }

  async close(): Promise<void> {
    await this.tidy()
    await this.admin.close()
    await this.transport.cleanup?.()
    await this.database.drop()
    rmSync(this.dataDir, { recursive: true, force: true })
  }
}

/** Deletes the Redis keys under `prefix` (never FLUSHALL: the Redis may be shared). */
export async function dropPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url)
  try {
    const keys = await redis.keys(`${prefix}:*`)
    if (keys.length) await redis.del(...keys)
  } finally {
    await redis.quit()
  }
}

/** A date column's value (epoch milliseconds on SQLite, a date on PostgreSQL). */
export function dateOf(value: unknown): Date {
  return value instanceof Date ? value : new Date(value as number | string)
}

/** The states a type's `onState` hook saw, per job, in order; with the state read through the hook's transaction. */
function transitions(): {
  hook: NonNullable<JobTypeOptions['onState']>
  of(id: string): string[]
  all: { job: JobRecord; at: number; inTransaction: boolean; stored: string }[]
} {
  const all: { job: JobRecord; at: number; inTransaction: boolean; stored: string }[] = []
  return {
    all,
    of: (id) => all.filter((t) => t.job.id === id).map((t) => t.job.state),
    async hook({ job, em }: JobTransition) {
      const at = Date.now()
      const db = em.getTransactionContext<Knex.Transaction>()
      const row = db
        ? ((await db('jobs')
            .where({ id: Number(job.id) })
            .first()) as { state: string } | undefined)
        : undefined
      all.push({ job, at, inTransaction: em.isInTransaction(), stored: row?.state ?? '(not readable)' })
    },
  }
}

/**
 * The conformance suite of the jobs module with one transport. `transport` is called once,
 * before the suite (it may set up a Redis prefix); every kernel shares its database.
 */
export function queueConformance(name: string, transport: () => Transport): void {
  describe(`jobs conformance: ${name}`, () => {
    let cluster: Cluster
    let counter = 0
    /** A job type no other test uses. */
    const fresh = (): string => `conformance.t${++counter}`
    const boot = (jobs: Record<string, JobHandler>, options?: BootOptions): Promise<Kernel> =>
      cluster.boot(jobs, options)
    const get = async (id: string): Promise<JobRecord> => (await cluster.get(id))!
    const untilState = (id: string, state: JobRecord['state'], timeoutMs?: number): Promise<JobRecord> =>
      until(
        `job ${id} ${state}`,
        async () => {
          const now = await get(id)
          return now.state === state ? now : null
        },
        timeoutMs,
      )
    const ids = (jobs: JobRecord[]): string[] => jobs.map((job) => job.id)

    beforeAll(async () => {
      cluster = await Cluster.open(transport())
    })
    afterEach(async () => {
      await cluster?.tidy()
    })
    afterAll(async () => {
      await cluster?.close()
    })

    describe('enqueue, get, list, find', () => {
      it('stores a waiting job with its payload, key and subject; get and list answer it', async () => {
        const t = fresh()
        const k = await boot({ [t]: idle })
        const before = Date.now()
        const job = await k.jobs.enqueue(
          t,
          { fileId: 42, name: 'clip.mp4', nested: { a: [1, 2] } },
          { key: `key:${t}`, subject: `slug-${t}` },
        )
        expect(job).toMatchObject({
          type: t,
          payload: { fileId: 42, name: 'clip.mp4', nested: { a: [1, 2] } },
          state: 'waiting',
          attempts: 0,
          maxAttempts: 3,
          progress: 0,
          lastError: null,
          key: `key:${t}`,
          subject: `slug-${t}`,
        })
        expect(job.id).toMatch(/^[1-9]\d*$/)
        expect(job.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000)
        expect(job.runAfter.getTime()).toBeLessThanOrEqual(Date.now() + 1000)
        expect(await k.jobs.get(job.id)).toEqual(job)
        expect(await k.jobs.list({ type: t })).toEqual([job])

        const seven = await k.jobs.enqueue(t, {}, { maxAttempts: 7 })
        expect(seven).toMatchObject({ maxAttempts: 7, key: null, subject: null })
        expect((await k.jobs.get(seven.id))!.maxAttempts).toBe(7)
        expect(await k.jobs.get('999999999')).toBeNull()
        expect(await k.jobs.get('not-an-id')).toBeNull()
      })

      it('refuses undeclared types, payloads that are not small JSON objects, bad keys, subjects and attempts', async () => {
        const t = fresh()
        const k = await boot({ [t]: idle })
        await expect(k.jobs.enqueue(`${t}.other`, {})).rejects.toThrow(
          `unknown job type "${t}.other": no enabled plugin declares it`,
        )
        await expect(k.jobs.enqueue(t, [] as never)).rejects.toThrow('must be a JSON object')
        await expect(k.jobs.enqueue(t, null as never)).rejects.toThrow('must be a JSON object')
        await expect(k.jobs.enqueue(t, { blob: 'x'.repeat(MAX_PAYLOAD_BYTES) })).rejects.toThrow(
          `larger than ${MAX_PAYLOAD_BYTES} bytes`,
        )
        await expect(k.jobs.enqueue(t, {}, { key: '' })).rejects.toThrow('a job key is 1 to 255 characters')
        await expect(k.jobs.enqueue(t, {}, { key: 'k'.repeat(256) })).rejects.toThrow(
          'a job key is 1 to 255 characters',
        )
        await expect(k.jobs.enqueue(t, {}, { subject: 's'.repeat(256) })).rejects.toThrow(
          'a job subject is 1 to 255 characters',
        )
        for (const maxAttempts of [0, 101, 1.5]) {
          await expect(k.jobs.enqueue(t, {}, { maxAttempts })).rejects.toThrow(
            'maxAttempts is an integer from 1 to 100',
          )
        }
        expect(await k.jobs.list({ type: t })).toEqual([])
      })

      it('lists newest first, by type, state and subject, at most limit; finds a job by subject or number', async () => {
        const t = fresh()
        const slug = `slug-${t}`
        const k = await boot({ [t]: idle })
        const a = await k.jobs.enqueue(t, { n: 1 }, { subject: slug })
        const b = await k.jobs.enqueue(t, { n: 2 }, { subject: slug })
        const c = await k.jobs.enqueue(t, { n: 3 }, { subject: `${slug}-other` })
        expect(ids(await k.jobs.list({ type: t }))).toEqual([c.id, b.id, a.id])
        expect(ids(await k.jobs.list({ type: t, limit: 2 }))).toEqual([c.id, b.id])
        expect(ids(await k.jobs.list({ subject: slug }))).toEqual([b.id, a.id])
        await k.jobs.cancel(b.id)
        expect(ids(await k.jobs.list({ type: t, state: 'cancelled' }))).toEqual([b.id])
        expect(ids(await k.jobs.list({ type: t, state: 'waiting' }))).toEqual([c.id, a.id])
        expect(ids(await k.jobs.list({ subject: slug, state: 'waiting' }))).toEqual([a.id])
        expect(await k.jobs.list({ type: t, state: 'succeeded' })).toEqual([])
        expect((await k.jobs.list({ limit: 1 })).length).toBe(1)
        await expect(k.jobs.list({ state: 'done' as never })).rejects.toThrow('unknown job state "done"')

        expect((await k.jobs.find(slug))!.id).toBe(b.id)
        expect((await k.jobs.find(slug, (job) => job.state === 'waiting'))!.id).toBe(a.id)
        expect((await k.jobs.find(c.id))!.id).toBe(c.id)
        expect((await k.jobs.find(`#${c.id}`))!.id).toBe(c.id)
        expect(await k.jobs.find(`nothing-${t}`)).toBeNull()
      })

      it('queues in the caller’s transaction: a rolled-back job never exists, a committed one runs', async () => {
        const t = fresh()
        const ran: unknown[] = []
        const k = await boot({ [t]: async (job) => void ran.push(job.payload.n) })
        await k.startJobs({ concurrency: 1 })
        await expect(
          transaction(k.em(), async (em) => {
            await k.jobs.enqueue(t, { n: 1 }, { em })
            throw new Error('rolled back')
          }),
        ).rejects.toThrow('rolled back')
        const job = await transaction(k.em(), (em) => k.jobs.enqueue(t, { n: 2 }, { em }))
        expect(await untilState(job.id, 'succeeded')).toMatchObject({ attempts: 1 })
        expect(ids(await k.jobs.list({ type: t }))).toEqual([job.id])
        expect(ran).toEqual([2])
      })
    })

    describe('keys', () => {
      it('answers the live job (waiting or running) for its key, and queues a new job once it finished', async () => {
        const t = fresh()
        const key = `encode:${t}`
        const gate = cluster.gate()
        const k = await boot({
          [t]: async (job) => {
            if (job.payload.n === 1) await gate.promise
          },
        })
        const first = await k.jobs.enqueue(t, { n: 1 }, { key })
        const again = await k.jobs.enqueue(t, { n: 2 }, { key })
        expect(again).toEqual(first)
        const other = await k.jobs.enqueue(t, { n: 9 }, { key: `${key}:other` })
        expect(other.id).not.toBe(first.id)
        expect(await k.jobs.list({ type: t })).toHaveLength(2)

        await k.startJobs({ concurrency: 2 })
        await untilState(first.id, 'running')
        expect(await k.jobs.enqueue(t, { n: 3 }, { key })).toMatchObject({ id: first.id, payload: { n: 1 } })
        gate.resolve()
        await untilState(first.id, 'succeeded')
        const next = await k.jobs.enqueue(t, { n: 4 }, { key })
        expect(next).toMatchObject({ state: 'waiting', key, payload: { n: 4 } })
        expect(next.id).not.toBe(first.id)
        await untilState(next.id, 'succeeded')
      })

      it('makes one job of concurrent enqueues with one key, from two processes', async () => {
        const t = fresh()
        const one = await boot({ [t]: idle })
        const two = await boot({ [t]: idle })
        const jobs = await Promise.all(
          Array.from({ length: 16 }, (_, i) => (i % 2 ? two : one).jobs.enqueue(t, { i }, { key: `race:${t}` })),
        )
        expect(new Set(ids(jobs)).size).toBe(1)
        expect(await one.jobs.list({ type: t })).toHaveLength(1)
      })
    })

    describe('running', () => {
      it('runs a job once, with its payload and attempt 1; it ends succeeded at progress 100', async () => {
        const t = fresh()
        const runs: JobContext[] = []
        const k = await boot({ [t]: async (job) => void runs.push(job) })
        await k.startJobs({ concurrency: 2 })
        const job = await k.jobs.enqueue(t, { fileId: 'f1' })
        const done = await untilState(job.id, 'succeeded')
        expect(done).toMatchObject({ attempts: 1, maxAttempts: 3, progress: 100, lastError: null })
        expect(done.updatedAt.getTime()).toBeGreaterThanOrEqual(job.createdAt.getTime())
        expect(runs).toHaveLength(1)
        expect(runs[0]).toMatchObject({ id: job.id, type: t, payload: { fileId: 'f1' }, attempt: 1, maxAttempts: 3 })
        expect(runs[0]!.signal.aborted).toBe(false)
        // A later job through the same consumer: the first one does not run again.
        const later = await k.jobs.enqueue(t, { fileId: 'f2' })
        await untilState(later.id, 'succeeded')
        expect(runs.map((run) => run.id)).toEqual([job.id, later.id])
      })

      it('leaves waiting the jobs of types a process does not run', async () => {
        const [mine, theirs] = [fresh(), fresh()]
        const producer = await boot({ [mine]: idle, [theirs]: idle })
        const ran: string[] = []
        const consumer = await boot({ [mine]: async (job) => void ran.push(job.id) })
        await consumer.startJobs({ concurrency: 2 })
        const other = await producer.jobs.enqueue(theirs, {})
        const first = await producer.jobs.enqueue(mine, {})
        await untilState(first.id, 'succeeded')
        const second = await producer.jobs.enqueue(mine, {})
        await untilState(second.id, 'succeeded')
        expect(await get(other.id)).toMatchObject({ state: 'waiting', attempts: 0 })
        expect(ran).toEqual([first.id, second.id])
      })

      it('records progress, never lower within a run, 100 once succeeded', async () => {
        const t = fresh()
        const reported = deferred()
        const finish = cluster.gate()
        const k = await boot({
          [t]: async (job) => {
            await job.progress(10)
            await job.progress(40)
            await job.progress(20)
            reported.resolve()
            await finish.promise
            await job.progress(70)
            await job.progress(150)
          },
        })
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {})
        await reported.promise
        const samples: number[] = []
        const seen = await until('progress 40 stored', async () => {
          const now = await get(job.id)
          samples.push(now.progress)
          return now.progress >= 40 ? now : null
        })
        expect(seen).toMatchObject({ state: 'running', progress: 40 })
        // Longer than the progress throttle (500 ms): a lower value (20) would have been written by now.
        const watchUntil = Date.now() + 700
        await until('the watch over', async () => {
          samples.push((await get(job.id)).progress)
          return Date.now() > watchUntil
        })
        finish.resolve()
        samples.push((await untilState(job.id, 'succeeded')).progress)
        for (let i = 1; i < samples.length; i++) expect(samples[i]).toBeGreaterThanOrEqual(samples[i - 1]!)
        expect(samples.at(-2)).toBe(40)
        expect(samples.at(-1)).toBe(100)
      })

      it('keeps a job that outlives its lease with its process (the heartbeat renews it), run once', async () => {
        const t = fresh()
        let runs = 0
        const handler: JobHandler = async (job) => {
          runs++
          const start = Date.now()
          // Outlives its lease: the heartbeat has pushed the lease past two and a half of its lengths.
          await until('the heartbeat to renew the lease', async () => {
            const until = (await cluster.row(job.id)).lease_until
            return until != null && dateOf(until).getTime() > start + LEASE_MS * 2.5
          })
        }
        const one = await boot({ [t]: handler })
        const two = await boot({ [t]: handler })
        await one.startJobs({ concurrency: 1 })
        const job = await one.jobs.enqueue(t, {})
        await untilState(job.id, 'running')
        await two.startJobs({ concurrency: 1 })
        const done = await untilState(job.id, 'succeeded', LEASE_MS * 5 + 10_000)
        expect(done.attempts).toBe(1)
        expect(runs).toBe(1)
        expect(one.jobs.stats.takenBack + two.jobs.stats.takenBack).toBe(0)
      })
    })

    describe('failures', () => {
      it('retries a failed run after a backoff that doubles (±25 %), waiting meanwhile, then succeeds', async () => {
        const t = fresh()
        const backoffMs = 400
        const started: number[] = []
        const thrown: number[] = []
        const { hook, all } = transitions()
        const k = await boot(
          {
            [t]: async (job) => {
              started.push(Date.now())
              if (job.attempt < 3) {
                thrown.push(Date.now())
                throw new Error(`boom ${job.attempt}`)
              }
            },
          },
          { hooks: { [t]: hook }, config: { jobs: { backoff: backoffMs / 1000 } } },
        )
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {})
        const samples: { at: number; job: JobRecord }[] = []
        const done = await until(
          `job ${job.id} succeeded`,
          async () => {
            const at = Date.now()
            const now = await get(job.id)
            samples.push({ at, job: now })
            return now.state === 'succeeded' ? now : null
          },
          15_000,
          10,
        )
        expect(done).toMatchObject({ attempts: 3, lastError: null, progress: 100 })
        expect(started).toHaveLength(3)
        const changes = all.filter((t) => t.job.state === 'waiting')
        const waits = changes.map((t) => t.job)
        expect(waits.map((w) => [w.attempts, w.lastError])).toEqual([
          [1, 'boom 1'],
          [2, 'boom 2'],
        ])
        for (const n of [1, 2]) {
          const exact = backoffMs * 2 ** (n - 1)
          const next = waits[n - 1]!.runAfter.getTime()
          // Set between the throw and the change's hook: bounded from the one below, from the other above.
          expect(next - thrown[n - 1]!, `backoff after failure ${n}`).toBeGreaterThanOrEqual(0.75 * exact - 2)
          expect(next - changes[n - 1]!.at, `backoff after failure ${n}`).toBeLessThanOrEqual(1.25 * exact + 2)
          expect(started[n]!, `run ${n + 1} not before its next try`).toBeGreaterThanOrEqual(next - 2)
          // While it backs off, the job is waiting (with the failed run counted and its next try), never running.
          const backingOff = samples.filter((s) => s.job.attempts === n && s.at > thrown[n - 1]! + 100)
          expect(backingOff.length).toBeGreaterThan(0)
          for (const s of backingOff) {
            expect(s.job).toMatchObject({ state: 'waiting', lastError: `boom ${n}` })
            expect(s.job.runAfter.getTime()).toBe(next)
          }
          expect(backingOff.some((s) => s.job.runAfter.getTime() > s.at)).toBe(true)
        }
      })

      it("follows a type's declared retry delays (±20 %) instead of the doubling backoff", async () => {
        const t = fresh()
        const delays = [600, 150]
        const thrown: number[] = []
        const { hook, all } = transitions()
        const k = await boot(
          {
            [t]: async (job) => {
              if (job.attempt < 3) {
                thrown.push(Date.now())
                throw new Error(`boom ${job.attempt}`)
              }
            },
          },
          // A doubling backoff of 10 s would time the test out: the declared delays win.
          { hooks: { [t]: hook }, delays: { [t]: delays }, config: { jobs: { backoff: 10 } } },
        )
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {}, { maxAttempts: 3 })
        const done = await untilState(job.id, 'succeeded', 15_000)
        expect(done.attempts).toBe(3)
        const waits = all.filter((change) => change.job.state === 'waiting')
        expect(waits.map((w) => w.job.attempts)).toEqual([1, 2])
        for (const n of [1, 2]) {
          const { job: waiting, at: recorded } = waits[n - 1]!
          // The next try is set between the throw and the change's hook (a loaded machine may take a while
          // in between): at least 0.8 × the delay after the throw, at most 1.2 × after the hook.
          const next = waiting.runAfter.getTime()
          expect(next - thrown[n - 1]!, `delay after failure ${n}`).toBeGreaterThanOrEqual(0.8 * delays[n - 1]! - 2)
          expect(next - recorded, `delay after failure ${n}`).toBeLessThanOrEqual(1.2 * delays[n - 1]! + 2)
        }
      })

      it('stays failed with the last error once maxAttempts runs failed', async () => {
        const t = fresh()
        const runs: string[] = []
        const k = await boot({
          [t]: async (job) => {
            runs.push(job.id)
            if (!job.payload.ok) throw new Error(`boom ${job.attempt}`)
          },
        })
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {}, { maxAttempts: 2 })
        expect(await untilState(job.id, 'failed')).toMatchObject({
          attempts: 2,
          maxAttempts: 2,
          lastError: 'boom 2',
        })
        // A later job runs through the same consumer; the failed one is not run again.
        const later = await k.jobs.enqueue(t, { ok: true })
        await untilState(later.id, 'succeeded')
        expect(runs).toEqual([job.id, job.id, later.id])
        expect((await get(job.id)).state).toBe('failed')
      })

      it('fails a job at once on a PermanentJobError, with no retry queued', async () => {
        const t = fresh()
        const runs: string[] = []
        const { hook, of } = transitions()
        const k = await boot(
          {
            [t]: async (job) => {
              runs.push(job.id)
              if (!job.payload.ok) throw new PermanentJobError('the upload is unreadable')
            },
          },
          { hooks: { [t]: hook } },
        )
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {})
        expect(await untilState(job.id, 'failed')).toMatchObject({
          attempts: 1,
          maxAttempts: 3,
          lastError: 'the upload is unreadable',
        })
        const later = await k.jobs.enqueue(t, { ok: true })
        await untilState(later.id, 'succeeded')
        expect(runs).toEqual([job.id, later.id])
        expect(of(job.id)).toEqual(['running', 'failed'])
      })

      it('aborts the signal at the time limit; the run counts as failed', async () => {
        const t = fresh()
        let reason: unknown
        const k = await boot(
          {
            [t]: async (job) => {
              await abortion(job.signal).catch((error: unknown) => {
                reason = error
                throw error
              })
            },
          },
          { config: { jobs: { time_limit: 0.3 } } },
        )
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {}, { maxAttempts: 1 })
        const failed = await untilState(job.id, 'failed')
        expect(failed).toMatchObject({ attempts: 1, lastError: 'time limit of 0.3 s passed' })
        expect((reason as Error).message).toBe('time limit of 0.3 s passed')
      })
    })

    describe('retry and cancel', () => {
      it('queues a failed job again with attempts from 0; it runs', async () => {
        const t = fresh()
        let fail = true
        const k = await boot({
          [t]: async () => {
            if (fail) throw new Error('not yet')
          },
        })
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, { fileId: 3 }, { maxAttempts: 1 })
        expect(await untilState(job.id, 'failed')).toMatchObject({ attempts: 1, lastError: 'not yet' })
        fail = false
        const retried = await k.jobs.retry(job.id)
        expect(retried).toMatchObject({
          id: job.id,
          state: 'waiting',
          attempts: 0,
          maxAttempts: 1,
          progress: 0,
          payload: { fileId: 3 },
        })
        expect(await untilState(job.id, 'succeeded')).toMatchObject({ attempts: 1, lastError: null })
      })

      it('queues a cancelled job again; it runs', async () => {
        const t = fresh()
        const ran: string[] = []
        const k = await boot({ [t]: async (job) => void ran.push(job.id) })
        const job = await k.jobs.enqueue(t, {}, { key: `k:${t}` })
        await k.jobs.cancel(job.id)
        expect(await k.jobs.retry(job.id)).toMatchObject({ state: 'waiting', attempts: 0, key: `k:${t}` })
        await k.startJobs({ concurrency: 1 })
        expect(await untilState(job.id, 'succeeded')).toMatchObject({ attempts: 1 })
        expect(ran).toEqual([job.id])
      })

      it('refuses to retry a live job, or one whose key another live job holds; answers null for an unknown one', async () => {
        const t = fresh()
        const key = `k:${t}`
        const gate = cluster.gate()
        const k = await boot({ [t]: () => gate.promise })
        const cancelled = await k.jobs.enqueue(t, {}, { key })
        await k.jobs.cancel(cancelled.id)
        const live = await k.jobs.enqueue(t, {}, { key })
        expect(live.id).not.toBe(cancelled.id)
        await expect(k.jobs.retry(live.id)).rejects.toThrow(
          `job ${live.id} is waiting: only failed or cancelled jobs can be retried`,
        )
        await expect(k.jobs.retry(cancelled.id)).rejects.toThrow(
          `job ${live.id} with the same key "${key}" is waiting: it does the work already`,
        )
        expect((await get(cancelled.id)).state).toBe('cancelled')
        await k.startJobs({ concurrency: 1 })
        await untilState(live.id, 'running')
        await expect(k.jobs.retry(live.id)).rejects.toThrow(`job ${live.id} is running`)
        expect(await k.jobs.retry('999999999')).toBeNull()
      })

      it('cancels a waiting job: it never runs, its key is free; finished jobs cannot be cancelled', async () => {
        const t = fresh()
        const key = `k:${t}`
        const ran: string[] = []
        const { hook, of } = transitions()
        const k = await boot({ [t]: async (job) => void ran.push(job.id) }, { hooks: { [t]: hook } })
        const job = await k.jobs.enqueue(t, {}, { key })
        expect(await k.jobs.cancel(job.id)).toMatchObject({
          id: job.id,
          state: 'cancelled',
          attempts: 0,
          lastError: 'cancelled by an operator',
        })
        await expect(k.jobs.cancel(job.id)).rejects.toThrow(
          `job ${job.id} is cancelled: only waiting or running jobs can be cancelled`,
        )
        expect(await k.jobs.cancel('999999999')).toBeNull()
        const next = await k.jobs.enqueue(t, {}, { key })
        expect(next.id).not.toBe(job.id)
        await k.startJobs({ concurrency: 2 })
        await untilState(next.id, 'succeeded')
        await expect(k.jobs.cancel(next.id)).rejects.toThrow(`job ${next.id} is succeeded`)
        expect(ran).toEqual([next.id])
        expect(await get(job.id)).toMatchObject({ state: 'cancelled', attempts: 0 })
        expect(of(job.id)).toEqual(['cancelled'])
      })

      it('cancels a running job: its signal aborts within about a third of the lease; its outcome is not recorded', async () => {
        const t = fresh()
        const running = deferred()
        let abortedAt = 0
        let reason = ''
        const { hook, of } = transitions()
        const k = await boot(
          {
            [t]: async (job) => {
              if (job.payload.later) return
              running.resolve()
              await new Promise((resolve) => job.signal.addEventListener('abort', resolve, { once: true }))
              abortedAt = Date.now()
              reason = (job.signal.reason as Error).message
              // Resolves, as a handler finishing its work anyway would: the job must stay cancelled.
            },
          },
          { hooks: { [t]: hook } },
        )
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {})
        await running.promise
        const cancelledAt = Date.now()
        expect(await k.jobs.cancel(job.id)).toMatchObject({ state: 'cancelled', lastError: 'cancelled by an operator' })
        await until('the run aborted', () => abortedAt > 0, LEASE_MS * 5)
        expect(abortedAt - cancelledAt).toBeLessThan(LEASE_MS)
        expect(reason).toMatch(/cancelled/)
        // One slot: a later job runs once the cancelled run ended (and its outcome was dealt with).
        const later = await k.jobs.enqueue(t, { later: true })
        await untilState(later.id, 'succeeded')
        expect(await get(job.id)).toMatchObject({ state: 'cancelled', lastError: 'cancelled by an operator' })
        expect(of(job.id)).toEqual(['running', 'cancelled'])
      })
    })

    describe('concurrency', () => {
      it('runs at most `concurrency` jobs at once, each once', async () => {
        const t = fresh()
        let active = 0
        let most = 0
        const ran: string[] = []
        const k = await boot({
          [t]: async (job) => {
            active++
            most = Math.max(most, active)
            // The first run holds until a second one runs beside it (a third would be seen too).
            await until('two runs at once', () => most >= 2)
            ran.push(job.id)
            active--
          },
        })
        await k.startJobs({ concurrency: 2 })
        const jobs = await Promise.all(Array.from({ length: 6 }, (_, i) => k.jobs.enqueue(t, { i })))
        for (const job of jobs) await untilState(job.id, 'succeeded')
        expect(most).toBe(2)
        expect(ran.sort()).toEqual(ids(jobs).sort())
      })

      it('never runs a job twice when two processes consume the same jobs', async () => {
        const t = fresh()
        const active = new Set<string>()
        const overlaps: string[] = []
        const ran: string[] = []
        const handler: JobHandler = async (job) => {
          if (active.has(job.id)) overlaps.push(job.id)
          active.add(job.id)
          await sleep(60)
          ran.push(job.id)
          active.delete(job.id)
        }
        const one = await boot({ [t]: handler })
        const two = await boot({ [t]: handler })
        await one.startJobs({ concurrency: 2 })
        await two.startJobs({ concurrency: 2 })
        const jobs = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? two : one).jobs.enqueue(t, { i })))
        for (const job of jobs) expect(await untilState(job.id, 'succeeded')).toMatchObject({ attempts: 1 })
        expect(overlaps).toEqual([])
        expect(ran.sort()).toEqual(ids(jobs).sort())
      })
    })

    describe('stopping', () => {
      it('stop (requeue) aborts the runs and puts them back, the cut run not counted; they run again elsewhere', async () => {
        const t = fresh()
        const runs: { attempt: number; outcome: string }[] = []
        const running = deferred()
        const { hook, of } = transitions()
        const first = await boot(
          {
            [t]: async (job) => {
              running.resolve()
              await abortion(job.signal).catch((error: unknown) => {
                runs.push({ attempt: job.attempt, outcome: `aborted: ${(error as Error).message}` })
                throw error
              })
            },
          },
          { hooks: { [t]: hook } },
        )
        await first.startJobs({ concurrency: 1 })
        const job = await first.jobs.enqueue(t, {})
        await running.promise
        await first.jobs.stop({ mode: 'requeue', graceMs: 5000 })
        expect(runs).toEqual([{ attempt: 1, outcome: 'aborted: the process is stopping; the job runs again later' }])
        expect(await get(job.id)).toMatchObject({ state: 'waiting', attempts: 0, lastError: null })
        expect(await cluster.row(job.id)).toMatchObject({ lease_owner: null, lease_until: null })

        const second = await boot(
          { [t]: async (j) => void runs.push({ attempt: j.attempt, outcome: 'done' }) },
          { hooks: { [t]: hook } },
        )
        await second.startJobs({ concurrency: 1 })
        expect(await untilState(job.id, 'succeeded')).toMatchObject({ attempts: 1 })
        expect(runs.at(-1)).toEqual({ attempt: 1, outcome: 'done' })
        expect(of(job.id)).toEqual(['running', 'waiting', 'running', 'succeeded'])
      })

      it('stop (wait) lets the runs finish, taking no new job meanwhile', async () => {
        const t = fresh()
        const gate = cluster.gate()
        const running = deferred()
        let signal: AbortSignal | undefined
        const k = await boot({
          [t]: async (job) => {
            signal = job.signal
            running.resolve()
            await gate.promise
          },
        })
        const producer = await boot({ [t]: idle })
        await k.startJobs({ concurrency: 2 })
        const job = await k.jobs.enqueue(t, {})
        await running.promise
        let stopped = false
        const stopping = k.jobs.stop({ mode: 'wait', graceMs: 10_000 }).then(() => (stopped = true))
        const later = await producer.jobs.enqueue(t, {})
        await sleep(300)
        expect(stopped).toBe(false)
        expect(signal!.aborted).toBe(false)
        gate.resolve()
        await stopping
        expect(signal!.aborted).toBe(false)
        expect(await get(job.id)).toMatchObject({ state: 'succeeded', attempts: 1 })
        expect(await get(later.id)).toMatchObject({ state: 'waiting', attempts: 0 })
      })

      it('stop (wait) puts back the runs still going after graceMs', async () => {
        const t = fresh()
        const running = deferred()
        let reason = ''
        const k = await boot({
          [t]: async (job) => {
            running.resolve()
            await abortion(job.signal).catch((error: unknown) => {
              reason = (error as Error).message
              throw error
            })
          },
        })
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {})
        await running.promise
        const before = Date.now()
        await k.jobs.stop({ mode: 'wait', graceMs: 300 })
        expect(Date.now() - before).toBeGreaterThanOrEqual(290)
        expect(reason).toBe('the process is stopping; the job runs again later')
        expect(await get(job.id)).toMatchObject({ state: 'waiting', attempts: 0 })
      })
    })

    describe('processes that stop without finishing', () => {
      /** A process whose handler ignores its signal: `stop` gives up on it, the job left running under its lease. */
      async function leaveBehind(
        t: string,
        options: { hooks?: BootOptions['hooks']; maxAttempts?: number; jobs?: number } = {},
      ): Promise<{ gone: Kernel; jobs: JobRecord[]; abandon: () => Promise<void>; settle: () => Promise<void> }> {
        const hung = cluster.gate()
        const count = options.jobs ?? 1
        let started = 0
        let returned = 0
        const gone = await boot(
          {
            [t]: async () => {
              started++
              await hung.promise
              returned++
            },
          },
          { hooks: options.hooks },
        )
        await gone.startJobs({ concurrency: count })
        const jobs: JobRecord[] = []
        for (let i = 0; i < count; i++)
          jobs.push(await gone.jobs.enqueue(t, { i }, { maxAttempts: options.maxAttempts }))
        await until(`${count} run(s) started`, () => started === count)
        return {
          gone,
          jobs,
          /** Stops the process, which gives up on its runs (they ignore their signal) after about a second: their lease is no longer renewed. */
          async abandon() {
            await gone.jobs.stop({ graceMs: 50 })
          },
          /** Lets the abandoned runs end (late), and waits until they did. */
          async settle() {
            hung.resolve()
            await until('the abandoned runs ended', () => returned === count)
            // Their (unrecorded) endings settle in the turns that follow.
            await new Promise((resolve) => setImmediate(resolve))
          },
        }
      }

      it('stop gives up on a run ignoring its signal within about graceMs (at least a second): the job is left to its lease', async () => {
        const t = fresh()
        const { gone, jobs } = await leaveBehind(t)
        const before = Date.now()
        const stopped = gone.jobs.stop({ graceMs: 50 }).then(() => Date.now() - before)
        const took = await Promise.race([stopped, sleep(6000).then(() => null)])
        expect(took, 'stop() still pending 6 s after it was called with graceMs 50').not.toBeNull()
        expect(took!).toBeLessThan(3000)
        expect(await get(jobs[0]!.id)).toMatchObject({ state: 'running', attempts: 1 })
      })

      it('a run left behind runs again elsewhere once its lease expired (waiting in between), once, to success', async () => {
        const t = fresh()
        const { hook, all, of } = transitions()
        const { jobs, abandon, settle } = await leaveBehind(t, { hooks: { [t]: hook } })
        const job = jobs[0]!
        const runs: number[] = []
        const survivor = await boot(
          { [t]: async (j) => void runs.push(j.attempt) },
          // No full reconciliation (which takes back at once the runs of processes of this host known gone): the lease decides.
          { hooks: { [t]: hook }, config: { jobs: { reconcile_interval: 3600 } } },
        )
        await survivor.startJobs({ concurrency: 1 })
        await abandon()
        expect((await get(job.id)).state).toBe('running')
        const leaseUntil = dateOf((await cluster.row(job.id)).lease_until).getTime()

        const done = await untilState(job.id, 'succeeded', LEASE_MS * 3 + 10_000)
        expect(done).toMatchObject({ attempts: 2, lastError: null })
        expect(runs).toEqual([2])
        expect(of(job.id)).toEqual(['running', 'waiting', 'running', 'succeeded'])
        const back = all.find((t) => t.job.id === job.id && t.job.state === 'waiting')!
        expect(back.job).toMatchObject({ attempts: 1, lastError: expect.stringMatching(/^interrupted: /) })
        expect(back.at).toBeGreaterThanOrEqual(leaseUntil)
        expect(survivor.jobs.stats.takenBack).toBe(1)

        // The abandoned run ends late: it changes nothing the survivor recorded.
        await settle()
        expect(await get(job.id)).toMatchObject({ state: 'succeeded', attempts: 2 })
        expect(runs).toEqual([2])
      })

      it('a running job whose lease expired is waiting again, its run counted and why kept, even where nobody runs its type', async () => {
        const t = fresh()
        const { jobs, abandon } = await leaveBehind(t)
        const job = jobs[0]!
        const watcher = await boot({ [fresh()]: idle }, { config: { jobs: { reconcile_interval: 3600 } } })
        await watcher.startJobs({ concurrency: 1 })
        await abandon()
        const back = await untilState(job.id, 'waiting', LEASE_MS * 3 + 10_000)
        expect(back).toMatchObject({
          attempts: 1,
          lastError: 'interrupted: the process running it stopped (its lease was not renewed)',
        })
        expect(await cluster.row(job.id)).toMatchObject({ lease_owner: null, lease_until: null })
      })

      it('a process that lost its lease sees it at its heartbeat: its run is aborted, its outcome not recorded', async () => {
        const t = fresh()
        const running = deferred()
        let reason = ''
        const runs: number[] = []
        const loser = await boot({
          [t]: async (job) => {
            // The next run may be anywhere, this process included (it is alive): it succeeds.
            if (job.attempt > 1) return void runs.push(job.attempt)
            running.resolve()
            await abortion(job.signal).catch((error: unknown) => {
              reason = (error as Error).message
              throw error
            })
          },
        })
        await loser.startJobs({ concurrency: 1 })
        const job = await loser.jobs.enqueue(t, {})
        await running.promise
        const survivor = await boot({ [t]: async (j) => void runs.push(j.attempt) })
        await survivor.startJobs({ concurrency: 1 })
        // Another host took the job and its lease expired there (a long pause, a partition): any process takes it back.
        await cluster.setRow(job.id, {
          lease_owner: 'elsewhere.example:1:00000000',
          lease_until: new Date(Date.now() - 1000),
        })
        await until('the loser’s run aborted', () => reason, LEASE_MS * 3)
        expect(reason).toMatch(/taken back|lease/)
        expect(await untilState(job.id, 'succeeded', LEASE_MS * 3 + 10_000)).toMatchObject({ attempts: 2 })
        expect(runs).toEqual([2])
      })

      it('takes back at once the runs of a process of this host that no longer runs; other hosts’ wait for their lease', async () => {
        const t = fresh()
        const { jobs, abandon } = await leaveBehind(t, { jobs: 2 })
        const [dead, remote] = jobs as [JobRecord, JobRecord]
        await abandon()
        const hour = new Date(Date.now() + 3600_000)
        await cluster.setRow(dead.id, { lease_owner: `${hostname()}:${await deadPid()}:0000dead`, lease_until: hour })
        await cluster.setRow(remote.id, { lease_owner: 'elsewhere.example:123:00000001', lease_until: hour })
        const runs: string[] = []
        const survivor = await boot({ [t]: async (job) => void runs.push(job.id) })
        await survivor.startJobs({ concurrency: 2 })
        expect(await untilState(dead.id, 'succeeded')).toMatchObject({ attempts: 2 })
        // More than one look for stranded runs (every second): the other host's run stays with it.
        const looked = survivor.jobs.stats.looks
        await until('two more looks', () => survivor.jobs.stats.looks >= looked + 2, 10_000, 50)
        expect(await get(remote.id)).toMatchObject({ state: 'running', attempts: 1 })
        await cluster.setRow(remote.id, { lease_until: new Date(Date.now() - 1000) })
        expect(await untilState(remote.id, 'succeeded', LEASE_MS * 3 + 10_000)).toMatchObject({ attempts: 2 })
        expect(runs).toEqual([dead.id, remote.id])
      })

      it('fails a job whose last attempt was interrupted, without running it again', async () => {
        const t = fresh()
        const { jobs, abandon } = await leaveBehind(t, { maxAttempts: 1 })
        const job = jobs[0]!
        let runs = 0
        const survivor = await boot({ [t]: async () => void runs++ })
        await survivor.startJobs({ concurrency: 1 })
        await abandon()
        const failed = await untilState(job.id, 'failed', LEASE_MS * 3 + 10_000)
        expect(failed).toMatchObject({
          attempts: 1,
          maxAttempts: 1,
          lastError: expect.stringMatching(/^interrupted: /),
        })
        expect(await cluster.row(job.id)).toMatchObject({ lease_owner: null, live_key: null })
        const later = await survivor.jobs.enqueue(t, {})
        await untilState(later.id, 'succeeded')
        expect(runs).toBe(1)
      })
    })

    describe('the onState hook', () => {
      it('is called in the transaction of each change: running, waiting, succeeded, failed, cancelled', async () => {
        const t = fresh()
        const { hook, all, of } = transitions()
        const k = await boot(
          {
            [t]: async (job) => {
              if (job.payload.fail === 'once' && job.attempt === 1) throw new Error('once')
              if (job.payload.fail === 'always') throw new Error('always')
            },
          },
          { hooks: { [t]: hook }, config: { jobs: { backoff: 0.05 } } },
        )
        const cancelled = await k.jobs.enqueue(t, {})
        await k.jobs.cancel(cancelled.id)
        await k.startJobs({ concurrency: 2 })
        const retried = await k.jobs.enqueue(t, { fail: 'once' })
        const failed = await k.jobs.enqueue(t, { fail: 'always' }, { maxAttempts: 1 })
        await untilState(retried.id, 'succeeded')
        await untilState(failed.id, 'failed')
        await k.jobs.retry(cancelled.id)
        await untilState(cancelled.id, 'succeeded')

        expect(of(cancelled.id)).toEqual(['cancelled', 'waiting', 'running', 'succeeded'])
        expect(of(retried.id)).toEqual(['running', 'waiting', 'running', 'succeeded'])
        expect(of(failed.id)).toEqual(['running', 'failed'])
        for (const change of all) {
          expect(change.inTransaction).toBe(true)
          // Read through the hook's transaction: the job already has its new state there.
          expect(change.stored).toBe(change.job.state)
        }
        expect(all.find((c) => c.job.id === retried.id && c.job.state === 'waiting')!.job).toMatchObject({
          attempts: 1,
          lastError: 'once',
        })
      })

      it('rolls the change back when it throws: the job is not succeeded until it ran again after its lease expired', async () => {
        const t = fresh()
        const { hook, of } = transitions()
        let threw = false
        const runs: number[] = []
        const k = await boot(
          { [t]: async (job) => void runs.push(job.attempt) },
          {
            hooks: {
              [t]: async (change) => {
                if (change.job.state === 'succeeded' && !threw) {
                  threw = true
                  throw new Error('the plugin could not record it')
                }
                await hook(change)
              },
            },
          },
        )
        await k.startJobs({ concurrency: 1 })
        const job = await k.jobs.enqueue(t, {})
        await until('the hook threw', () => threw)
        expect(await get(job.id)).toMatchObject({ state: 'running', attempts: 1 })
        const done = await untilState(job.id, 'succeeded', LEASE_MS * 3 + 10_000)
        expect(done).toMatchObject({ attempts: 2 })
        expect(runs).toEqual([1, 2])
        expect(of(job.id)).toEqual(['running', 'waiting', 'running', 'succeeded'])
      })
    })

    describe('cleanup', () => {
      it('removes finished jobs older than jobs.keep_finished at reconciliation; keeps live and recent ones', async () => {
        const t = fresh()
        const k = await boot({ [t]: idle }, { config: { jobs: { keep_finished: 60 } } })
        const oldCancelled = await k.jobs.enqueue(t, {})
        const oldWaiting = await k.jobs.enqueue(t, {})
        const recent = await k.jobs.enqueue(t, {})
        await k.jobs.cancel(oldCancelled.id)
        await k.jobs.cancel(recent.id)
        const ago = new Date(Date.now() - 120_000)
        for (const job of [oldCancelled, oldWaiting]) await cluster.setRow(job.id, { updated_at: ago })
        await k.jobs.reconcileNow()
        expect(await k.jobs.get(oldCancelled.id)).toBeNull()
        expect((await k.jobs.get(oldWaiting.id))!.state).toBe('waiting')
        expect((await k.jobs.get(recent.id))!.state).toBe('cancelled')
      })
    })
  })
}
