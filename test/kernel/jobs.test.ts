import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { EntitySchema } from '@mikro-orm/core'
import { afterEach, describe, expect, it } from 'vitest'
import { serve } from '../../src/app/serve.js'
import { CATALOG } from '../../src/catalog.js'
import {
  type EnqueueOptions,
  type JobHandler,
  type JobRecord,
  Kernel,
  type PluginContext,
  type PluginDefinition,
  type QueuePort,
  type StartOptions,
  type StopOptions,
  type PluginCatalog,
  catalogOf,
  createLogger,
  definePlugin,
  jobConcurrency,
  loadConfig,
} from '../../src/kernel/index.js'

/** Kernel side of the jobs: `ctx.job`, `ctx.enqueue`, `startJobs`, shutdown order, config. */

const dirs: string[] = []
const kernels: Kernel[] = []

afterEach(async () => {
  for (const kernel of kernels.splice(0)) await kernel.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-jobs-'))
  dirs.push(dir)
  return dir
}

/** The ports every kernel needs, as stand-ins (nothing here authenticates or stores), and one entity for the ORM. */
const base = definePlugin({
  name: 'base',
  entities: [
    new EntitySchema<{ id: number }>({ name: 'Thing', properties: { id: { type: 'integer', primary: true } } }),
  ],
  register(ctx) {
    ctx.provide('credentials', { findByUsername: () => Promise.resolve(null) } as never)
    ctx.provide('accessGrants', {} as never)
    ctx.provide('storage', {} as never)
  },
})

/** A queue backend that records what the kernel asks of it. */
class RecordingQueue implements QueuePort {
  readonly calls: string[] = []
  enqueued: { type: string; payload: Record<string, unknown>; options?: EnqueueOptions }[] = []
  started: { handlers: ReadonlyMap<string, JobHandler>; options: StartOptions } | undefined
  stopped: StopOptions | undefined
  /** Runs inside `stop`, to look at what is still open then. */
  onStop: (() => Promise<void>) | undefined

  constructor(readonly consumesInServe = true) {}

  enqueue(type: string, payload: Record<string, unknown>, options?: EnqueueOptions): Promise<JobRecord> {
    this.enqueued.push({ type, payload, options })
    const now = new Date()
    return Promise.resolve({
      id: String(this.enqueued.length),
      type,
      payload,
      state: 'waiting',
      attempts: 0,
      maxAttempts: options?.maxAttempts ?? 3,
      progress: 0,
      lastError: null,
      key: options?.key ?? null,
      runAfter: now,
      createdAt: now,
      updatedAt: now,
    })
  }
  start(handlers: ReadonlyMap<string, JobHandler>, options: StartOptions): Promise<void> {
    this.calls.push('start')
    this.started = { handlers, options }
    return Promise.resolve()
  }
  async stop(options?: StopOptions): Promise<void> {
    this.calls.push('stop')
    this.stopped = options
    await this.onStop?.()
  }
  list(): Promise<JobRecord[]> {
    return Promise.resolve([])
  }
  get(): Promise<JobRecord | null> {
    return Promise.resolve(null)
  }
  retry(): Promise<JobRecord | null> {
    return Promise.resolve(null)
  }
}

function queuePlugin(queue: QueuePort, onStop?: () => void): PluginDefinition {
  return definePlugin({
    name: 'fake-queue',
    register(ctx) {
      ctx.provide('queue', queue)
      if (onStop) ctx.onStop(onStop)
    },
  })
}

/** A plugin declaring job types; its context is kept for the test. */
function jobsPlugin(
  name: string,
  types: Record<string, JobHandler>,
  keep?: (ctx: PluginContext) => void,
): PluginDefinition {
  return definePlugin({
    name,
    register(ctx) {
      for (const [type, handler] of Object.entries(types)) ctx.job(type, handler)
      keep?.(ctx as PluginContext)
    },
  })
}

const noop: JobHandler = () => Promise.resolve()

/** These plugins, plus mediactl's names (so the sections of config/default.yaml are known). */
function catalogWith(plugins: PluginDefinition[]): PluginCatalog {
  const own = catalogOf(plugins as PluginDefinition<never>[])
  return { names: [...CATALOG.names, ...own.names], load: own.load }
}

async function boot(plugins: PluginDefinition[], overrides: Record<string, unknown> = {}): Promise<Kernel> {
  const dir = tempDir()
  const all = [base, ...plugins]
  const { config } = loadConfig({
    env: {},
    cwd: dir,
    overrides: { data_dir: dir, log_level: 'silent', plugins: all.map((p) => p.name), ...overrides },
  })
  const kernel = await Kernel.boot({
    config,
    catalog: catalogWith(all),
    logger: createLogger('silent'),
  })
  kernels.push(kernel)
  return kernel
}

describe('declaring jobs (ctx.job)', () => {
  it('keeps the handlers by type', async () => {
    const encode: JobHandler = () => Promise.resolve()
    const kernel = await boot([jobsPlugin('media', { 'media.encode': encode }), queuePlugin(new RecordingQueue())])
    expect(kernel.jobs.has('media.encode')).toBe(true)
    expect(kernel.jobs.handlers().get('media.encode')).toBe(encode)
    expect(kernel.jobs.describe()).toBe('media.encode (media)')
  })

  it('refuses a type declared twice, naming both plugins', async () => {
    const boot2 = boot([
      jobsPlugin('media', { 'media.encode': noop }),
      jobsPlugin('encoding', { 'media.encode': noop }),
      queuePlugin(new RecordingQueue()),
    ])
    await expect(boot2).rejects.toThrow(
      'job type "media.encode" is declared twice: by plugin "media" and by plugin "encoding"',
    )
  })

  it('refuses a malformed type', async () => {
    await expect(
      boot([jobsPlugin('media', { 'Media Encode': noop }), queuePlugin(new RecordingQueue())]),
    ).rejects.toThrow(
      'plugin "media" declares job type "Media Encode": use lowercase words joined by ".", "_", "-" or ":" (at most 128 characters)',
    )
  })

  it('stops the boot when jobs are declared without a queue backend', async () => {
    await expect(boot([jobsPlugin('media', { 'media.encode': noop })])).rejects.toThrow(
      'jobs are declared (media.encode (media)) but no queue backend is enabled: enable queue-inline or queue-bullmq in the "plugins" config key',
    )
  })

  it('changes nothing without jobs and without a queue backend', async () => {
    const kernel = await boot([])
    expect(kernel.jobs.size).toBe(0)
    expect(await kernel.startJobs()).toBe(false)
  })
})

describe('queueing (ctx.enqueue)', () => {
  it('goes through the queue port, with jobs.max_attempts unless the options say otherwise', async () => {
    const queue = new RecordingQueue()
    let ctx!: PluginContext
    await boot([jobsPlugin('media', { 'media.encode': noop }, (c) => (ctx = c)), queuePlugin(queue)], {
      jobs: { max_attempts: 5 },
    })
    const job = await ctx.enqueue('media.encode', { fileId: 1 }, { key: 'encode:1' })
    expect(job).toMatchObject({ type: 'media.encode', key: 'encode:1', maxAttempts: 5 })
    await ctx.enqueue('media.encode', { fileId: 2 }, { maxAttempts: 1 })
    expect(queue.enqueued).toEqual([
      { type: 'media.encode', payload: { fileId: 1 }, options: { key: 'encode:1', maxAttempts: 5 } },
      { type: 'media.encode', payload: { fileId: 2 }, options: { maxAttempts: 1 } },
    ])
  })

  it('refuses a type no enabled plugin declares', async () => {
    const queue = new RecordingQueue()
    let ctx!: PluginContext
    await boot([jobsPlugin('media', { 'media.encode': noop }, (c) => (ctx = c)), queuePlugin(queue)])
    await expect(ctx.enqueue('media.transcode', {})).rejects.toThrow(
      'unknown job type "media.transcode": no enabled plugin declares it',
    )
    expect(queue.enqueued).toEqual([])
  })
})

describe('running jobs (Kernel.startJobs) and stopping them', () => {
  it('hands the declared handlers to the queue with the jobs settings', async () => {
    const queue = new RecordingQueue()
    const kernel = await boot(
      [jobsPlugin('media', { 'media.encode': noop, 'media.snapshot': noop }), queuePlugin(queue)],
      {
        jobs: { concurrency: 3, backoff: 2.5, time_limit: 60 },
      },
    )
    expect(await kernel.startJobs()).toBe(true)
    expect([...queue.started!.handlers.keys()]).toEqual(['media.encode', 'media.snapshot'])
    expect(queue.started!.options).toEqual({ concurrency: 3, timeLimitMs: 60_000, backoffMs: 2500 })
    await expect(kernel.startJobs()).rejects.toThrow('jobs are already running in this process')
  })

  it('jobs.concurrency 0 is one per two cores, at least 1; startJobs may set it', async () => {
    const queue = new RecordingQueue()
    const kernel = await boot([jobsPlugin('media', { 'media.encode': noop }), queuePlugin(queue)])
    expect(kernel.config.jobs.concurrency).toBe(0)
    await kernel.startJobs()
    expect(queue.started!.options.concurrency).toBe(Math.max(1, Math.floor(availableParallelism() / 2)))

    const other = new RecordingQueue()
    const second = await boot([jobsPlugin('media', { 'media.encode': noop }), queuePlugin(other)])
    await second.startJobs({ concurrency: 7 })
    expect(other.started!.options.concurrency).toBe(7)
  })

  it('does not start a queue when no plugin declares jobs', async () => {
    const queue = new RecordingQueue()
    const kernel = await boot([queuePlugin(queue)])
    expect(await kernel.startJobs()).toBe(false)
    await kernel.close()
    expect(queue.calls).toEqual([])
  })

  it('close() stops the queue (grace: http.shutdown_timeout) before the plugins stop and the database closes', async () => {
    const queue = new RecordingQueue()
    const order: string[] = []
    const kernel = await boot(
      [jobsPlugin('media', { 'media.encode': noop }), queuePlugin(queue, () => void order.push('plugin stopped'))],
      { http: { shutdown_timeout: 4 } },
    )
    queue.onStop = async () => {
      order.push('queue stopped')
      order.push((await kernel.orm.isConnected()) ? 'database open' : 'database closed')
    }
    await kernel.startJobs()
    await kernel.close()
    expect(order).toEqual(['queue stopped', 'database open', 'plugin stopped'])
    expect(queue.stopped).toEqual({ graceMs: 4000 })
    expect(await kernel.orm.isConnected()).toBe(false)
    // close() again waits for the same close; the queue is not stopped twice.
    await kernel.close()
    expect(queue.calls).toEqual(['start', 'stop'])
  })
})

describe('serve', () => {
  async function serveWith(queue: RecordingQueue) {
    const dir = tempDir()
    const plugins = [base, jobsPlugin('media', { 'media.encode': noop }), queuePlugin(queue)]
    return serve({
      env: {},
      cwd: dir,
      overrides: {
        data_dir: dir,
        log_level: 'silent',
        plugins: plugins.map((p) => p.name),
        auth: { secret: 'test-secret' },
        http: { host: '127.0.0.1', port: 0 },
      },
      catalog: catalogWith(plugins),
      logger: createLogger('silent'),
    })
  }

  it('runs the jobs once listening when the queue consumes in serve, and stops them', async () => {
    const queue = new RecordingQueue(true)
    const serving = await serveWith(queue)
    expect(serving.jobs).toBe(true)
    expect(queue.calls).toEqual(['start'])
    await serving.stop()
    expect(queue.calls).toEqual(['start', 'stop'])
  })

  it('leaves them to workers when the queue does not consume in serve', async () => {
    const queue = new RecordingQueue(false)
    const serving = await serveWith(queue)
    expect(serving.jobs).toBe(false)
    await serving.stop()
    expect(queue.calls).toEqual([])
  })
})

describe('the jobs configuration', () => {
  const load = (overrides: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
    loadConfig({ env, cwd: tmpdir(), overrides }).config

  it('has documented defaults', () => {
    expect(load().jobs).toEqual({ concurrency: 0, max_attempts: 3, backoff: 10, time_limit: 3600 })
  })

  it('is read from MEDIACTL_JOBS__* variables', () => {
    const config = load({}, { MEDIACTL_JOBS__CONCURRENCY: '4', MEDIACTL_JOBS__BACKOFF: '0.5' })
    expect(config.jobs).toMatchObject({ concurrency: 4, backoff: 0.5 })
  })

  it('refuses bad values and unknown keys, by name', () => {
    expect(() => load({ jobs: { concurrency: -1, max_attempts: 0, backoff: 0, time_limit: 'long' } })).toThrow(
      /jobs\.concurrency: Number must be greater than or equal to 0[\s\S]*jobs\.max_attempts[\s\S]*jobs\.backoff[\s\S]*jobs\.time_limit/,
    )
    expect(() => load({ jobs: { retries: 2 } })).toThrow(/jobs: Unrecognized key\(s\) in object: 'retries'/)
  })

  it('jobConcurrency: configured, else one per two cores, at least 1', () => {
    expect(jobConcurrency(5, 16)).toBe(5)
    expect(jobConcurrency(0, 16)).toBe(8)
    expect(jobConcurrency(0, 3)).toBe(1)
    expect(jobConcurrency(0, 1)).toBe(1)
  })
})
