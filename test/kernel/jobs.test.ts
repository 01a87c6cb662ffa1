import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { EntitySchema } from '@mikro-orm/core'
import { afterEach, describe, expect, it } from 'vitest'
import { serve } from '../../src/app/serve.js'
import { CATALOG } from '../../src/catalog.js'
import {
  type JobHandler,
  type JobSignal,
  type JobTaker,
  Kernel,
  type PluginCatalog,
  type PluginContext,
  type PluginDefinition,
  type QueuePort,
  type Reconciler,
  createLogger,
  definePlugin,
  jobConcurrency,
  loadConfig,
  transaction,
} from '../../src/kernel/index.js'
import { freshDatabase } from '../helpers/database.js'
import { type LogLine, recordingLogger } from '../helpers/log.js'
import { waitFor } from '../helpers/wait.js'

/**
 * The kernel side of the jobs: declaring (`ctx.job`), queueing in the caller's transaction
 * (`ctx.enqueue`, the transport told once it commits), `startJobs` (consuming or not),
 * reconcilers, shutdown (jobs first, then each plugin's `onStop` in isolation) and the
 * `jobs` config. The store is the real database (SQLite, or PostgreSQL when
 * MEDIACTL_TEST_DATABASE_URL is set); the transport is a recording double, or the real
 * queue-inline where the runs themselves matter.
 */

const dirs: string[] = []
const kernels: Kernel[] = []
const databases: { drop(): Promise<void> }[] = []

afterEach(async () => {
  for (const kernel of kernels.splice(0).reverse()) await kernel.close()
  for (const database of databases.splice(0)) await database.drop()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-jobs-'))
  dirs.push(dir)
  return dir
}

/** pino's levels. */
const WARN = 40
const ERROR = 50

/** The ports every kernel needs, as stand-ins (nothing here authenticates or stores), and one entity for the ORM. */
const base = definePlugin({
  name: 'base',
  provides: ['credentials', 'accessGrants', 'storage'],
  entities: [
    new EntitySchema<{ id: number }>({ name: 'Thing', properties: { id: { type: 'integer', primary: true } } }),
  ],
  register(ctx) {
    ctx.provide('credentials', { findByUsername: () => Promise.resolve(null) } as never)
    ctx.provide('accessGrants', {} as never)
    ctx.provide('storage', {} as never)
  },
})

/**
 * A queue transport that records what the kernel asks of it (the jobs themselves are in the
 * database): the signals, the taker it was given to deliver to, stop's grace.
 */
class RecordingTransport implements QueuePort {
  readonly calls: string[] = []
  readonly signals: JobSignal[][] = []
  taker: JobTaker | undefined
  stopGraceMs: number | undefined
  /** Runs inside `stop`, to look at what is still open then. */
  onStop: (() => Promise<void>) | undefined

  constructor(
    readonly consumesInServe = true,
    readonly polls = true,
  ) {}

  /** Every job signalled so far, flattened. */
  get signalled(): JobSignal[] {
    return this.signals.flat()
  }

  signal(jobs: readonly JobSignal[]): Promise<void> {
    this.signals.push([...jobs])
    return Promise.resolve()
  }
  consume(taker: JobTaker): Promise<void> {
    this.calls.push('consume')
    this.taker = taker
    return Promise.resolve()
  }
  async stop(graceMs: number): Promise<void> {
    this.calls.push('stop')
    this.stopGraceMs = graceMs
    await this.onStop?.()
  }
  close(): Promise<void> {
    this.calls.push('close')
    return Promise.resolve()
  }
  check(): Promise<void> {
    return Promise.resolve()
  }
}

function transportPlugin(queue: QueuePort, onStop?: () => void): PluginDefinition {
  return definePlugin({
    name: 'fake-queue',
    provides: ['queue'],
    register(ctx) {
      ctx.provide('queue', queue)
      if (onStop) ctx.onStop(onStop)
    },
  })
}

/** A plugin declaring job types (and reconcilers); its context is kept for the test. */
function jobsPlugin(
  name: string,
  types: Record<string, JobHandler>,
  options: { keep?: (ctx: PluginContext) => void; reconcile?: Reconciler[] } = {},
): PluginDefinition {
  return definePlugin({
    name,
    register(ctx) {
      for (const [type, handler] of Object.entries(types)) ctx.job(type, handler)
      for (const run of options.reconcile ?? []) ctx.reconcile(run)
      options.keep?.(ctx as PluginContext)
    },
  })
}

/** A plugin that only stops (`onStop`). */
function stoppingPlugin(name: string, stop: () => Promise<void> | void): PluginDefinition {
  return definePlugin({ name, register: (ctx) => ctx.onStop(stop) })
}

const noop: JobHandler = () => Promise.resolve()

/**
 * These plugins, plus mediactl's catalog (queue-inline, and the names config/default.yaml has
 * sections for); a plugin here replaces the catalog's one of the same name.
 */
function catalogWith(plugins: PluginDefinition[]): PluginCatalog {
  const own = new Set(plugins.map((p) => p.name))
  return {
    names: [...new Set([...CATALOG.names, ...own])],
    load: async (names) => [
      ...(await CATALOG.load(names.filter((name) => !own.has(name)))),
      ...(plugins as PluginDefinition<never>[]).filter((p) => names.includes(p.name)),
    ],
  }
}

interface Booted {
  kernel: Kernel
  /** What the kernel logged (info and above). */
  lines: LogLine[]
  /** Another kernel on the same database (as another process would have it), to look after a close. */
  reopen(): Promise<Kernel>
}

/**
 * Boots a kernel on a fresh database (migrated: the kernel's `jobs` table) with `base` and
 * `plugins` (definitions, or names of mediactl's catalog such as 'queue-inline').
 */
async function bootWith(
  plugins: (PluginDefinition | string)[],
  overrides: Record<string, unknown> = {},
): Promise<Booted> {
  const dir = tempDir()
  const database = await freshDatabase()
  databases.push(database)
  const own = [base, ...plugins.filter((p): p is PluginDefinition => typeof p !== 'string')]
  const { config } = loadConfig({
    env: {},
    cwd: dir,
    overrides: {
      data_dir: dir,
      log_level: 'silent',
      database: { url: database.url },
      plugins: ['base', ...plugins.map((p) => (typeof p === 'string' ? p : p.name))],
      ...overrides,
    },
  })
  const catalog = catalogWith(own)
  const { logger, lines } = recordingLogger()
  const kernel = await Kernel.boot({ config, catalog, logger })
  kernels.push(kernel)
  await kernel.migrator.up()
  return {
    kernel,
    lines,
    async reopen() {
      const other = await Kernel.boot({ config, catalog, logger: createLogger('silent') })
      kernels.push(other)
      return other
    },
  }
}

async function boot(plugins: (PluginDefinition | string)[], overrides: Record<string, unknown> = {}): Promise<Kernel> {
  return (await bootWith(plugins, overrides)).kernel
}

/** A promise the test opens. */
function gate(): { opened: Promise<void>; open(): void; isOpen(): boolean } {
  let open!: () => void
  let isOpen = false
  const opened = new Promise<void>((resolve) => (open = resolve))
  return {
    opened,
    open: () => {
      isOpen = true
      open()
    },
    isOpen: () => isOpen,
  }
}

const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

describe('declaring jobs (ctx.job)', () => {
  it('keeps the handlers by type', async () => {
    const encode: JobHandler = () => Promise.resolve()
    const kernel = await boot([
      jobsPlugin('media', { 'media.encode': encode }),
      transportPlugin(new RecordingTransport()),
    ])
    expect(kernel.jobTypes.has('media.encode')).toBe(true)
    expect(kernel.jobTypes.has('media.other')).toBe(false)
    expect(kernel.jobTypes.handlers().get('media.encode')).toBe(encode)
    expect(kernel.jobTypes.describe()).toBe('media.encode (media)')
    expect(kernel.jobTypes.size).toBe(1)
  })

  it('refuses a type declared twice, naming both plugins', async () => {
    const booting = boot([
      jobsPlugin('media', { 'media.encode': noop }),
      jobsPlugin('encoding', { 'media.encode': noop }),
      transportPlugin(new RecordingTransport()),
    ])
    await expect(booting).rejects.toThrow(
      'job type "media.encode" is declared twice: by plugin "media" and by plugin "encoding"',
    )
  })

  it('refuses a malformed type', async () => {
    await expect(
      boot([jobsPlugin('media', { 'Media Encode': noop }), transportPlugin(new RecordingTransport())]),
    ).rejects.toThrow(
      'plugin "media" declares job type "Media Encode": use lowercase words joined by ".", "_", "-" or ":" (at most 128 characters)',
    )
    await expect(
      boot([jobsPlugin('media', { ['a'.repeat(129)]: noop }), transportPlugin(new RecordingTransport())]),
    ).rejects.toThrow('(at most 128 characters)')
  })

  it('stops the boot when jobs are declared without a queue backend', async () => {
    await expect(boot([jobsPlugin('media', { 'media.encode': noop })])).rejects.toThrow(
      'jobs are declared (media.encode (media)) but no queue backend is enabled: enable queue-inline or queue-bullmq in the "plugins" config key',
    )
  })

  it('changes nothing without jobs and without a queue backend', async () => {
    const kernel = await boot([])
    expect(kernel.jobTypes.size).toBe(0)
    expect(await kernel.startJobs()).toBe(false)
  })

  it('does not start jobs when no plugin declares any, even with a transport', async () => {
    const transport = new RecordingTransport()
    const kernel = await boot([transportPlugin(transport)])
    expect(await kernel.startJobs()).toBe(false)
    await kernel.close()
    expect(transport.calls).toEqual([])
  })
})

describe('queueing (ctx.enqueue)', () => {
  async function bootMedia(overrides: Record<string, unknown> = {}) {
    const transport = new RecordingTransport()
    let ctx!: PluginContext
    const kernel = await boot(
      [jobsPlugin('media', { 'media.encode': noop }, { keep: (c) => (ctx = c) }), transportPlugin(transport)],
      overrides,
    )
    return { kernel, transport, ctx: () => ctx }
  }

  it('stores a waiting job (jobs.max_attempts unless the options say otherwise) and tells the transport', async () => {
    const { kernel, transport, ctx } = await bootMedia({ jobs: { max_attempts: 5 } })
    const job = await ctx().enqueue('media.encode', { fileId: 1 }, { key: 'encode:1', subject: 'holiday' })
    expect(job).toMatchObject({
      type: 'media.encode',
      payload: { fileId: 1 },
      state: 'waiting',
      attempts: 0,
      maxAttempts: 5,
      progress: 0,
      lastError: null,
      key: 'encode:1',
      subject: 'holiday',
    })
    expect(await kernel.jobs.get(job.id)).toEqual(job)
    const other = await ctx().enqueue('media.encode', { fileId: 2 }, { maxAttempts: 1 })
    expect(other).toMatchObject({ maxAttempts: 1, key: null, subject: null })
    expect(transport.signals).toEqual([
      [{ id: job.id, type: 'media.encode', runAfter: job.runAfter }],
      [{ id: other.id, type: 'media.encode', runAfter: other.runAfter }],
    ])
    expect((await kernel.jobs.list()).map((j) => j.id)).toEqual([other.id, job.id])
    expect((await kernel.jobs.list({ subject: 'holiday' })).map((j) => j.id)).toEqual([job.id])
  })

  it('answers the live job of a key instead of queueing another, without telling the transport again', async () => {
    const { kernel, transport, ctx } = await bootMedia()
    const first = await ctx().enqueue('media.encode', { fileId: 1 }, { key: 'encode:1' })
    const again = await ctx().enqueue('media.encode', { fileId: 1 }, { key: 'encode:1' })
    expect(again.id).toBe(first.id)
    expect(await kernel.jobs.list()).toHaveLength(1)
    expect(transport.signalled.map((s) => s.id)).toEqual([first.id])
    // Once the job is not live any more, the key is free.
    await kernel.jobs.cancel(first.id)
    const third = await ctx().enqueue('media.encode', { fileId: 1 }, { key: 'encode:1' })
    expect(third.id).not.toBe(first.id)
  })

  it('refuses a type no enabled plugin declares, storing nothing', async () => {
    const { kernel, transport, ctx } = await bootMedia()
    await expect(ctx().enqueue('media.transcode', {})).rejects.toThrow(
      'unknown job type "media.transcode": no enabled plugin declares it',
    )
    await expect(kernel.jobs.enqueue('media.transcode', {})).rejects.toThrow('unknown job type "media.transcode"')
    expect(await kernel.jobs.list()).toEqual([])
    expect(transport.signals).toEqual([])
  })

  it('refuses bad payloads, keys, subjects and attempts', async () => {
    const { kernel, ctx } = await bootMedia()
    await expect(ctx().enqueue('media.encode', [] as never)).rejects.toThrow('must be a JSON object')
    await expect(ctx().enqueue('media.encode', { blob: 'x'.repeat(70_000) })).rejects.toThrow('larger than 65536 bytes')
    await expect(ctx().enqueue('media.encode', {}, { key: 'k'.repeat(256) })).rejects.toThrow('1 to 255 characters')
    await expect(ctx().enqueue('media.encode', {}, { subject: '' })).rejects.toThrow('1 to 255 characters')
    await expect(ctx().enqueue('media.encode', {}, { maxAttempts: 0 })).rejects.toThrow('maxAttempts is an integer')
    expect(await kernel.jobs.list()).toEqual([])
  })

  it('in a transaction (em): the transport is told only once it commits', async () => {
    const { kernel, transport, ctx } = await bootMedia()
    const job = await transaction(kernel.em(), async (tx) => {
      const queued = await ctx().enqueue('media.encode', { fileId: 1 }, { key: 'encode:1', em: tx })
      // Stored in the transaction, not told yet: a consumer would not find it.
      expect(transport.signals).toEqual([])
      return queued
    })
    expect(transport.signals).toEqual([[{ id: job.id, type: 'media.encode', runAfter: job.runAfter }]])
    expect(await kernel.jobs.get(job.id)).toMatchObject({ state: 'waiting', key: 'encode:1' })
  })

  it('in a transaction that rolls back: never told, and the job does not exist', async () => {
    const { kernel, transport, ctx } = await bootMedia()
    let id = ''
    await expect(
      transaction(kernel.em(), async (tx) => {
        id = (await ctx().enqueue('media.encode', { fileId: 1 }, { key: 'encode:1', em: tx, subject: 'gone' })).id
        throw new Error('the upload failed')
      }),
    ).rejects.toThrow('the upload failed')
    expect(id).not.toBe('')
    expect(await kernel.jobs.get(id)).toBeNull()
    expect(await kernel.jobs.list()).toEqual([])
    expect(await kernel.jobs.list({ subject: 'gone' })).toEqual([])
    // Not told later either (after-commit work of a rolled back transaction is dropped).
    await ticks(5)
    expect(transport.signals).toEqual([])
    // Its key was never taken.
    const next = await ctx().enqueue('media.encode', { fileId: 1 }, { key: 'encode:1' })
    expect(transport.signalled.map((s) => s.id)).toEqual([next.id])
  })
})

describe('running jobs (Kernel.startJobs) and stopping them', () => {
  it('hands the transport a taker for the declared types, with the jobs settings', async () => {
    const transport = new RecordingTransport()
    const ran: string[] = []
    const kernel = await boot(
      [
        jobsPlugin('media', {
          'media.encode': (job) => {
            ran.push(`${job.type} ${JSON.stringify(job.payload)} attempt ${job.attempt}/${job.maxAttempts}`)
            return Promise.resolve()
          },
          'media.snapshot': noop,
        }),
        transportPlugin(transport),
      ],
      { jobs: { concurrency: 3, backoff: 2.5, time_limit: 60 } },
    )
    expect(await kernel.startJobs()).toBe(true)
    expect(kernel.jobs.consuming).toBe(true)
    expect(transport.calls).toEqual(['consume'])
    const taker = transport.taker!
    expect(taker.types).toEqual(['media.encode', 'media.snapshot'])
    expect(taker.free()).toBe(3)
    await expect(kernel.startJobs()).rejects.toThrow('jobs are already running in this process')

    // The taker claims from the database and runs the handler; the outcome lands in the database.
    const job = await kernel.jobs.enqueue('media.encode', { fileId: 7 })
    expect(await taker.takeDue(5)).toBe(1)
    await waitFor(async () => (await kernel.jobs.get(job.id))?.state === 'succeeded', { message: 'the job to succeed' })
    expect(ran).toEqual(['media.encode {"fileId":7} attempt 1/3'])
    expect(await kernel.jobs.get(job.id)).toMatchObject({ attempts: 1, progress: 100, lastError: null })
    expect(await taker.takeDue(5)).toBe(0)
  })

  it('jobs.concurrency 0 is one per two cores, at least 1; startJobs may set it', async () => {
    const transport = new RecordingTransport()
    const kernel = await boot([jobsPlugin('media', { 'media.encode': noop }), transportPlugin(transport)])
    expect(kernel.config.jobs.concurrency).toBe(0)
    await kernel.startJobs()
    expect(transport.taker!.free()).toBe(Math.max(1, Math.floor(availableParallelism() / 2)))

    const other = new RecordingTransport()
    const second = await boot([jobsPlugin('media', { 'media.encode': noop }), transportPlugin(other)])
    await second.startJobs({ concurrency: 7 })
    expect(other.taker!.free()).toBe(7)
  })

  it('consume: false starts the reconciler without consuming', async () => {
    const transport = new RecordingTransport()
    let runs = 0
    const kernel = await boot([
      jobsPlugin(
        'media',
        { 'media.encode': noop },
        {
          reconcile: [
            () => {
              runs += 1
              return Promise.resolve(0)
            },
          ],
        },
      ),
      transportPlugin(transport),
    ])
    expect(await kernel.startJobs({ consume: false })).toBe(true)
    expect(runs).toBe(1)
    expect(kernel.jobs.consuming).toBe(false)
    expect(transport.calls).toEqual([])
    expect(transport.taker).toBeUndefined()
    await expect(kernel.startJobs()).rejects.toThrow('jobs are already running in this process')
    await kernel.close()
    // Nothing was consumed, so there is no delivery to stop.
    expect(transport.calls).toEqual([])
  })

  it('close() stops the jobs (grace: http.shutdown_timeout) before the plugins stop and the database closes', async () => {
    const transport = new RecordingTransport()
    const order: string[] = []
    const kernel = await boot(
      [
        jobsPlugin('media', { 'media.encode': noop }),
        transportPlugin(transport, () => void order.push('plugin stopped')),
      ],
      { http: { shutdown_timeout: 4 } },
    )
    transport.onStop = async () => {
      order.push('transport stopped')
      order.push((await kernel.orm.isConnected()) ? 'database open' : 'database closed')
    }
    await kernel.startJobs()
    await kernel.close()
    expect(order).toEqual(['transport stopped', 'database open', 'plugin stopped'])
    expect(transport.stopGraceMs).toBe(4000)
    expect(await kernel.orm.isConnected()).toBe(false)
    // close() again waits for the same close; the transport is not stopped twice.
    await kernel.close()
    expect(transport.calls).toEqual(['consume', 'stop'])
    await expect(kernel.startJobs()).rejects.toThrow('the kernel is closing')
  })

  it('a transport failing to stop is logged; the plugins still stop and the database closes', async () => {
    const transport = new RecordingTransport()
    let stopped = false
    const { kernel, lines } = await bootWith([
      jobsPlugin('media', { 'media.encode': noop }),
      transportPlugin(transport, () => void (stopped = true)),
    ])
    transport.onStop = () => Promise.reject(new Error('redis went away'))
    await kernel.startJobs()
    await kernel.close()
    expect(stopped).toBe(true)
    expect(await kernel.orm.isConnected()).toBe(false)
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: ERROR,
        msg: 'jobs did not stop cleanly; their leases expire and they run again',
        err: expect.objectContaining({ message: 'redis went away' }) as unknown,
      }),
    )
  })

  it('a transport that does not poll is told again of the waiting jobs at each reconciliation', async () => {
    const transport = new RecordingTransport(true, false)
    const kernel = await boot([jobsPlugin('media', { 'media.encode': noop }), transportPlugin(transport)])
    const waiting = await kernel.jobs.enqueue('media.encode', { fileId: 1 })
    const cancelled = await kernel.jobs.enqueue('media.encode', { fileId: 2 })
    await kernel.jobs.cancel(cancelled.id)
    transport.signals.length = 0
    await kernel.startJobs({ consume: false })
    expect(transport.signalled).toEqual([{ id: waiting.id, type: 'media.encode', runAfter: waiting.runAfter }])
  })
})

describe('reconcilers (ctx.reconcile)', () => {
  it('run at start and every jobs.reconcile_interval; what they queue is counted in jobs.stats.reconciled', async () => {
    const transport = new RecordingTransport()
    let ctx!: PluginContext
    const runs: number[] = []
    const keys = ['encode:1', 'encode:2']
    const { kernel, lines } = await bootWith(
      [
        jobsPlugin(
          'media',
          { 'media.encode': noop },
          {
            keep: (c) => (ctx = c),
            reconcile: [
              async ({ liveKeys }) => {
                runs.push(Date.now())
                const live = await liveKeys(keys)
                let queued = 0
                for (const key of keys.filter((k) => !live.has(k))) {
                  await ctx.enqueue('media.encode', {}, { key })
                  queued += 1
                }
                return queued
              },
            ],
          },
        ),
        transportPlugin(transport),
      ],
      { jobs: { reconcile_interval: 1 } },
    )
    await ctx.enqueue('media.encode', {}, { key: 'encode:1' })
    await kernel.startJobs({ consume: false })
    // At start: encode:1 is live, encode:2 gets its job.
    expect(runs).toHaveLength(1)
    expect(kernel.jobs.stats.reconciled).toBe(1)
    expect((await kernel.jobs.list()).map((job) => job.key).sort()).toEqual(['encode:1', 'encode:2'])
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: WARN,
        plugin: 'media',
        jobs: 1,
        msg: 'reconciler queued work that had no live job',
      }),
    )
    // encode:2 finishes (no live job any more): the next reconciliation queues it again.
    await kernel.jobs.cancel((await kernel.jobs.list()).find((job) => job.key === 'encode:2')!.id)
    await waitFor(() => runs.length >= 3, { message: 'two more reconciliations' })
    expect(runs[1]! - runs[0]!).toBeGreaterThanOrEqual(900)
    expect(kernel.jobs.stats.reconciled).toBe(2)
    expect(await kernel.jobs.list({ state: 'waiting' })).toHaveLength(2)
  })

  it('also run in a consuming process', async () => {
    let runs = 0
    const kernel = await boot(
      [
        jobsPlugin(
          'media',
          { 'media.encode': noop },
          {
            reconcile: [
              () => {
                runs += 1
                return Promise.resolve(3)
              },
            ],
          },
        ),
        transportPlugin(new RecordingTransport()),
      ],
      { jobs: { reconcile_interval: 1 } },
    )
    await kernel.startJobs()
    expect(runs).toBe(1)
    await waitFor(() => runs >= 2, { message: 'a second reconciliation' })
    expect(kernel.jobs.stats.reconciled).toBeGreaterThanOrEqual(6)
  })

  it('one that throws is logged and does not stop the others', async () => {
    let fine = 0
    let broken = 0
    const { kernel, lines } = await bootWith(
      [
        jobsPlugin(
          'broken',
          { 'broken.work': noop },
          {
            reconcile: [
              () => {
                broken += 1
                throw new Error('no such table: frobs')
              },
            ],
          },
        ),
        jobsPlugin(
          'media',
          { 'media.encode': noop },
          {
            reconcile: [
              () => {
                fine += 1
                return Promise.resolve(2)
              },
            ],
          },
        ),
        transportPlugin(new RecordingTransport()),
      ],
      { jobs: { reconcile_interval: 1 } },
    )
    expect(await kernel.startJobs({ consume: false })).toBe(true)
    expect({ broken, fine }).toEqual({ broken: 1, fine: 1 })
    expect(kernel.jobs.stats.reconciled).toBe(2)
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: ERROR,
        plugin: 'broken',
        msg: 'reconciler failed; it runs again at the next reconciliation',
        err: expect.objectContaining({ message: 'no such table: frobs' }) as unknown,
      }),
    )
    // And again at the next reconciliation, both of them.
    await waitFor(() => broken >= 2 && fine >= 2, { message: 'a second reconciliation' })
    expect(kernel.jobs.stats.reconciled).toBeGreaterThanOrEqual(4)
  })
})

describe('shutdown', () => {
  it("isolates each plugin's onStop: one throwing, one hanging, the others still stop and the database closes", async () => {
    let recorded = false
    const { kernel, lines } = await bootWith(
      [
        // Plugins stop in reverse order: the recording one last, after the throwing and the hanging ones.
        stoppingPlugin('recorder', () => void (recorded = true)),
        stoppingPlugin('thrower', () => {
          throw new Error('cannot flush')
        }),
        stoppingPlugin('hanger', () => new Promise<void>(() => undefined)),
      ],
      { http: { shutdown_timeout: 1 } },
    )
    const started = Date.now()
    await kernel.close()
    const elapsed = Date.now() - started
    expect(recorded).toBe(true)
    expect(await kernel.orm.isConnected()).toBe(false)
    // About http.shutdown_timeout: the hanging plugin's time box, and no more.
    expect(elapsed).toBeGreaterThanOrEqual(900)
    expect(elapsed).toBeLessThan(3500)
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: ERROR,
        plugin: 'hanger',
        timeout_ms: 1000,
        msg: 'plugin did not stop in time; shutting down without it',
      }),
    )
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: ERROR,
        plugin: 'thrower',
        msg: 'plugin failed to stop; shutting down the others',
        err: expect.objectContaining({ message: 'cannot flush' }) as unknown,
      }),
    )
  })

  /** A job type whose runs wait for the test (or for their signal to abort); on the real queue-inline. */
  async function bootSlow(shutdown: 'wait' | 'requeue', shutdownTimeout: number) {
    const started = gate()
    const release = gate()
    const aborted = gate()
    const slow: JobHandler = (job) =>
      new Promise<void>((resolve, reject) => {
        started.open()
        void release.opened.then(resolve)
        job.signal.addEventListener(
          'abort',
          () => {
            aborted.open()
            reject(job.signal.reason as Error)
          },
          { once: true },
        )
      })
    const booted = await bootWith(['queue-inline', jobsPlugin('slow', { 'slow.work': slow })], {
      jobs: { shutdown, concurrency: 1 },
      http: { shutdown_timeout: shutdownTimeout },
      'queue-inline': { poll_interval: 0.05 },
    })
    const { kernel } = booted
    expect(await kernel.startJobs()).toBe(true)
    const job = await kernel.jobs.enqueue('slow.work', {}, { subject: 'clip' })
    await started.opened
    expect(await kernel.jobs.get(job.id)).toMatchObject({ state: 'running', attempts: 1 })
    return { ...booted, job, release, aborted }
  }

  it("jobs.shutdown 'wait' lets a running job finish during close", async () => {
    const { kernel, reopen, job, release, aborted } = await bootSlow('wait', 10)
    let closed = false
    const closing = kernel.close().then(() => (closed = true))
    await ticks(20)
    // Still waiting for the run, which was not aborted.
    expect(closed).toBe(false)
    expect(aborted.isOpen()).toBe(false)
    release.open()
    await closing
    expect(aborted.isOpen()).toBe(false)
    expect(await kernel.orm.isConnected()).toBe(false)
    const other = await reopen()
    expect(await other.jobs.get(job.id)).toMatchObject({ state: 'succeeded', attempts: 1, progress: 100 })
  })

  it("jobs.shutdown 'wait' puts back what did not finish within http.shutdown_timeout", async () => {
    const { kernel, reopen, job, aborted } = await bootSlow('wait', 1)
    await kernel.close()
    expect(aborted.isOpen()).toBe(true)
    const other = await reopen()
    expect(await other.jobs.get(job.id)).toMatchObject({ state: 'waiting', attempts: 0, lastError: null })
  })

  it("jobs.shutdown 'requeue' aborts a running job and puts it back: waiting, attempts back to 0", async () => {
    const { kernel, reopen, job, aborted } = await bootSlow('requeue', 10)
    await kernel.close()
    expect(aborted.isOpen()).toBe(true)
    expect(await kernel.orm.isConnected()).toBe(false)
    const other = await reopen()
    const after = await other.jobs.get(job.id)
    expect(after).toMatchObject({ state: 'waiting', attempts: 0, progress: 0, lastError: null, subject: 'clip' })
    // Due at once: the next consumer runs it.
    expect(after!.runAfter.getTime()).toBeLessThanOrEqual(Date.now())
  })
})

describe('serve', () => {
  async function serveWith(transport: RecordingTransport, reconcile: Reconciler[] = []) {
    const dir = tempDir()
    const database = await freshDatabase()
    databases.push(database)
    const plugins = [base, jobsPlugin('media', { 'media.encode': noop }, { reconcile }), transportPlugin(transport)]
    const serving = await serve({
      env: {},
      cwd: dir,
      migrate: true,
      overrides: {
        data_dir: dir,
        log_level: 'silent',
        plugins: plugins.map((p) => p.name),
        database: { url: database.url },
        auth: { secret: 'test-secret' },
        http: { host: '127.0.0.1', port: 0 },
      },
      catalog: catalogWith(plugins),
      logger: createLogger('silent'),
    })
    kernels.push(serving.kernel)
    return serving
  }

  it('runs the jobs once listening when the transport consumes in serve, and stops them', async () => {
    const transport = new RecordingTransport(true)
    const serving = await serveWith(transport)
    expect(serving.jobs).toBe(true)
    expect(transport.calls).toEqual(['consume'])
    await serving.stop()
    expect(transport.calls).toEqual(['consume', 'stop'])
  })

  it('leaves the jobs to workers when the transport does not consume in serve, but reconciles', async () => {
    const transport = new RecordingTransport(false)
    let runs = 0
    const serving = await serveWith(transport, [
      () => {
        runs += 1
        return Promise.resolve(0)
      },
    ])
    expect(serving.jobs).toBe(false)
    expect(runs).toBe(1)
    await serving.stop()
    expect(transport.calls).toEqual([])
  })
})

describe('the jobs configuration', () => {
  const load = (overrides: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
    loadConfig({ env, cwd: tmpdir(), overrides }).config

  it('has documented defaults', () => {
    expect(load().jobs).toEqual({
      concurrency: 0,
      max_attempts: 3,
      backoff: 10,
      time_limit: 3600,
      lease: 30,
      reconcile_interval: 60,
      keep_finished: 604800,
      shutdown: 'requeue',
    })
  })

  it('is read from MEDIACTL_JOBS__* variables', () => {
    const config = load(
      {},
      {
        MEDIACTL_JOBS__CONCURRENCY: '4',
        MEDIACTL_JOBS__BACKOFF: '0.5',
        MEDIACTL_JOBS__LEASE: '5',
        MEDIACTL_JOBS__RECONCILE_INTERVAL: '2.5',
        MEDIACTL_JOBS__KEEP_FINISHED: '0',
        MEDIACTL_JOBS__SHUTDOWN: 'wait',
      },
    )
    expect(config.jobs).toMatchObject({
      concurrency: 4,
      backoff: 0.5,
      lease: 5,
      reconcile_interval: 2.5,
      keep_finished: 0,
      shutdown: 'wait',
    })
  })

  it('refuses bad values and unknown keys, by name', () => {
    expect(() => load({ jobs: { concurrency: -1, max_attempts: 0, backoff: 0, time_limit: 'long' } })).toThrow(
      /jobs\.concurrency: Number must be greater than or equal to 0[\s\S]*jobs\.max_attempts[\s\S]*jobs\.backoff[\s\S]*jobs\.time_limit/,
    )
    expect(() => load({ jobs: { lease: 0, reconcile_interval: 0, keep_finished: -1, shutdown: 'drain' } })).toThrow(
      /jobs\.lease: Number must be greater than or equal to 1[\s\S]*jobs\.reconcile_interval: Number must be greater than or equal to 1[\s\S]*jobs\.keep_finished: Number must be greater than or equal to 0[\s\S]*jobs\.shutdown: Invalid enum value. Expected 'requeue' \| 'wait', received 'drain'/,
    )
    expect(() => load({ jobs: { lease: 3601, reconcile_interval: 86401, keep_finished: 1.5 } })).toThrow(
      /jobs\.lease[\s\S]*jobs\.reconcile_interval[\s\S]*jobs\.keep_finished/,
    )
    expect(() => load({ jobs: { retries: 2 } })).toThrow(/jobs: unknown key "retries"$/m)
  })

  it('jobConcurrency: configured, else one per two cores, at least 1', () => {
    expect(jobConcurrency(5, 16)).toBe(5)
    expect(jobConcurrency(0, 16)).toBe(8)
    expect(jobConcurrency(0, 3)).toBe(1)
    expect(jobConcurrency(0, 1)).toBe(1)
  })

  it('accepts the keys that moved out of queue-inline (lease, keep_succeeded), ignoring them with a warning', async () => {
    const { kernel, lines } = await bootWith(['queue-inline'], {
      'queue-inline': { lease: 5, keep_succeeded: 100 },
    })
    expect(kernel.config.jobs).toMatchObject({ lease: 30, keep_finished: 604800 })
    const warnings = lines.filter((line) => line.level === WARN && line.plugin === 'queue-inline').map((l) => l.msg)
    expect(warnings).toEqual([
      'queue-inline.lease is ignored: set jobs.lease instead (docs/configuration.md)',
      'queue-inline.keep_succeeded is ignored: set jobs.keep_finished instead (docs/configuration.md)',
    ])
    // Without them, no warning.
    const quiet = await bootWith(['queue-inline'])
    expect(quiet.lines.filter((line) => line.level === WARN)).toEqual([])
    // Other keys are still refused.
    await expect(bootWith(['queue-inline'], { 'queue-inline': { retries: 1 } })).rejects.toThrow(
      /queue-inline: unknown key "retries"/,
    )
  })
})
