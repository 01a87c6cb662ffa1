import { spawn } from 'node:child_process'
import { hostname } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { CATALOG } from '../../../src/catalog.js'
import {
  type JobHandler,
  type JobRecord,
  Kernel,
  type PluginDefinition,
  type QueuePort,
  createLogger,
  definePlugin,
} from '../../../src/kernel/index.js'
import { MAX_PAYLOAD_BYTES } from '../../../plugins/queue-inline/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'

/**
 * What the inline queue adds to the port's guarantees (test/conformance/queue-inline.test.ts):
 * its rows, leases and owners, the drain through the kernel, crash recovery with a second
 * kernel on the same database, progress throttling, cleanup. SQLite, and PostgreSQL when
 * MEDIACTL_TEST_DATABASE_URL is set.
 */

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function until<T>(what: string, check: () => Promise<T> | T, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

/** The test plugin: declares the given job types with ctx.job. */
function jobsPlugin(handlers: Record<string, JobHandler>): PluginDefinition {
  return definePlugin({
    name: 'jobs-test',
    register(ctx) {
      for (const [type, handler] of Object.entries(handlers)) ctx.job(type, handler)
    },
  })
}

const apps: TestApp[] = []
const kernels: Kernel[] = []

afterEach(async () => {
  for (const kernel of kernels.splice(0)) await kernel.close()
  for (const app of apps.splice(0)) await app.close()
})

/** An app whose jobs the test starts itself; short polls, leases and backoffs. */
async function appWith(handlers: Record<string, JobHandler>, config: Record<string, unknown> = {}): Promise<TestApp> {
  const app = await startApp({
    jobs: false,
    plugins: [jobsPlugin(handlers)],
    config: { 'queue-inline': { poll_interval: 0.05, lease: 1 }, jobs: { backoff: 0.05 }, ...config },
  })
  apps.push(app)
  return app
}

/** Another process on the app's database: a second kernel with its own connections (and its own handlers). */
async function bootAgain(app: TestApp, handlers: Record<string, JobHandler>): Promise<Kernel> {
  const plugin = jobsPlugin(handlers) as PluginDefinition<never>
  const kernel = await Kernel.boot({
    config: app.kernel.config,
    catalog: {
      names: [...CATALOG.names, plugin.name],
      load: async (names) => [...(await CATALOG.load(names)), ...(names.includes(plugin.name) ? [plugin] : [])],
    },
    logger: createLogger('silent'),
  })
  kernels.unshift(kernel)
  return kernel
}

const queueOf = (kernel: Kernel): QueuePort => kernel.services.ports.get('queue')
const knexOf = (kernel: Kernel) => kernel.em().getKnex()
const rowOf = async (kernel: Kernel, id: string): Promise<Record<string, unknown>> =>
  (await knexOf(kernel)('jobs')
    .where({ id: Number(id) })
    .first()) as Record<string, unknown>

async function untilState(kernel: Kernel, id: string, state: JobRecord['state'], timeoutMs?: number) {
  return until(
    `job ${id} ${state}`,
    async () => {
      const job = await queueOf(kernel).get(id)
      return job?.state === state ? job : null
    },
    timeoutMs,
  )
}

/** A job row as a process that is gone left it: running under `owner`, leased until `leaseUntil`. */
async function leftRunning(
  kernel: Kernel,
  owner: string,
  leaseUntil: Date,
  fields: { type?: string; attempts?: number; maxAttempts?: number } = {},
): Promise<string> {
  const now = new Date()
  const sqlite = kernel.config.database.url === ''
  const at = (date: Date) => (sqlite ? date.getTime() : date)
  const [row] = (await knexOf(kernel)('jobs')
    .insert({
      type: fields.type ?? 'test.ok',
      payload: JSON.stringify({ owner }),
      state: 'running',
      attempts: fields.attempts ?? 1,
      max_attempts: fields.maxAttempts ?? 3,
      progress: 30,
      last_error: null,
      key: null,
      live_key: null,
      run_after: at(now),
      lease_until: at(leaseUntil),
      lease_owner: owner,
      created_at: at(now),
      updated_at: at(now),
    })
    .returning('id')) as { id: number }[]
  return String(row!.id)
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.on('exit', resolve))
  return child.pid!
}

describe('queue-inline: the jobs table', () => {
  it('holds the key in live_key while the job is live, and lets it go once finished', async () => {
    const release = deferred()
    const app = await appWith({ 'test.wait': () => release.promise })
    const job = await app.kernel.enqueue('test.wait', { fileId: 9 }, { key: 'encode:9' })
    expect(await rowOf(app.kernel, job.id)).toMatchObject({
      type: 'test.wait',
      state: 'waiting',
      key: 'encode:9',
      live_key: 'encode:9',
      lease_owner: null,
      lease_until: null,
    })
    await app.kernel.startJobs()
    await untilState(app.kernel, job.id, 'running')
    const running = await rowOf(app.kernel, job.id)
    const owner = String(running.lease_owner)
    expect(owner).toMatch(new RegExp(`^${hostname()}:${process.pid}:[0-9a-f]{8}$`))
    expect(running.lease_until).not.toBeNull()
    release.resolve()
    await untilState(app.kernel, job.id, 'succeeded')
    expect(await rowOf(app.kernel, job.id)).toMatchObject({
      key: 'encode:9',
      live_key: null,
      lease_owner: null,
      lease_until: null,
    })
  })

  it('refuses payloads that are not small JSON objects, and bad keys and attempts', async () => {
    const app = await appWith({ 'test.ok': async () => undefined })
    const queue = queueOf(app.kernel)
    await expect(queue.enqueue('test.ok', [] as never)).rejects.toThrow('must be a JSON object')
    await expect(queue.enqueue('test.ok', { blob: 'x'.repeat(MAX_PAYLOAD_BYTES) })).rejects.toThrow(
      `larger than ${MAX_PAYLOAD_BYTES} bytes`,
    )
    await expect(queue.enqueue('test.ok', {}, { key: 'k'.repeat(256) })).rejects.toThrow('1 to 255 characters')
    await expect(queue.enqueue('test.ok', {}, { maxAttempts: 0 })).rejects.toThrow('maxAttempts')
    expect(await queue.list()).toEqual([])
  })
})

describe('queue-inline: processes that stop', () => {
  it('kernel.close() aborts a running job through its signal; it waits, uncounted, and runs again in the next process', async () => {
    const running = deferred()
    let aborts = 0
    const app = await appWith({
      'test.long': (job) =>
        new Promise((_, reject) => {
          running.resolve()
          job.signal.addEventListener('abort', () => {
            aborts++
            reject(job.signal.reason as Error)
          })
        }),
    })
    await app.kernel.startJobs()
    const job = await app.kernel.enqueue('test.long', {})
    await running.promise
    await app.kernel.close()
    expect(aborts).toBe(1)

    let runs = 0
    const next = await bootAgain(app, { 'test.long': async () => void runs++ })
    expect(await queueOf(next).get(job.id)).toMatchObject({ state: 'waiting', attempts: 0 })
    expect(await rowOf(next, job.id)).toMatchObject({ lease_owner: null, lease_until: null })
    await next.startJobs()
    expect(await untilState(next, job.id, 'succeeded')).toMatchObject({ attempts: 1 })
    expect(runs).toBe(1)
  })

  it('after a kernel closed without draining, a second kernel on the database runs the job once to success', async () => {
    const hung = deferred()
    const running = deferred()
    // The handler ignores its signal; close() waits http.shutdown_timeout for it, then gives up.
    const app = await appWith(
      {
        'test.hang': async () => {
          running.resolve()
          await hung.promise
        },
      },
      { http: { shutdown_timeout: 0.1 } },
    )
    await app.kernel.startJobs()
    const job = await app.kernel.enqueue('test.hang', {})
    await running.promise
    await app.kernel.close()

    let runs = 0
    const next = await bootAgain(app, { 'test.hang': async () => void runs++ })
    expect((await queueOf(next).get(job.id))!.state).toBe('running')
    await next.startJobs()
    expect(await untilState(next, job.id, 'succeeded')).toMatchObject({ attempts: 2 })
    expect(runs).toBe(1)
    hung.resolve()
    await sleep(200)
    expect(await queueOf(next).get(job.id)).toMatchObject({ state: 'succeeded', attempts: 2 })
    expect(runs).toBe(1)
  })

  it('at start, takes back at once the jobs of stopped processes of this host; others wait for their lease', async () => {
    let runs = 0
    const app = await appWith({ 'test.ok': async () => void runs++ })
    const kernel = app.kernel
    const later = new Date(Date.now() + 3600_000)
    const host = hostname()
    const samePid = await leftRunning(kernel, `${host}:${process.pid}:00000000`, later)
    const exited = await leftRunning(kernel, `${host}:${await deadPid()}:00000001`, later)
    const lastAttempt = await leftRunning(kernel, `${host}:${process.pid}:00000002`, later, {
      attempts: 3,
      maxAttempts: 3,
    })
    const otherHost = await leftRunning(kernel, 'elsewhere.example:123:00000003', later)
    const livePid = await leftRunning(kernel, `${host}:${process.ppid}:00000004`, later)

    await kernel.startJobs()
    for (const id of [samePid, exited]) {
      expect(await untilState(kernel, id, 'succeeded')).toMatchObject({ attempts: 2, lastError: null })
    }
    expect(await queueOf(kernel).get(lastAttempt)).toMatchObject({
      state: 'failed',
      attempts: 3,
      lastError: 'interrupted: the process running it stopped',
    })
    await sleep(300)
    expect((await queueOf(kernel).get(otherHost))!.state).toBe('running')
    expect((await queueOf(kernel).get(livePid))!.state).toBe('running')
    expect(runs).toBe(2)

    // Once its lease has expired, a job is taken back from any owner.
    const sqlite = kernel.config.database.url === ''
    const past = new Date(Date.now() - 1000)
    await knexOf(kernel)('jobs')
      .where({ id: Number(otherHost) })
      .update({ lease_until: sqlite ? past.getTime() : past })
    expect(await untilState(kernel, otherHost, 'succeeded')).toMatchObject({ attempts: 2 })
    expect((await queueOf(kernel).get(livePid))!.state).toBe('running')
    expect(runs).toBe(3)
  })

  it('a running job whose lease expired keeps why in last_error while it waits', async () => {
    const app = await appWith({ 'test.ok': async () => undefined })
    const id = await leftRunning(app.kernel, 'elsewhere.example:1:00000005', new Date(Date.now() - 1000), {
      type: 'test.unknown-here',
    })
    await app.kernel.startJobs()
    const back = await untilState(app.kernel, id, 'waiting')
    expect(back).toMatchObject({
      attempts: 1,
      lastError: 'interrupted: the process running it stopped renewing its lease',
    })
  })
})

describe('queue-inline: progress and cleanup', () => {
  it('stores progress at most every 500 ms, and only changes of 1 or more', async () => {
    const app = await appWith({
      'test.progress': async (job) => {
        await job.progress(10)
        await sleep(50)
        await job.progress(20)
        await sleep(800)
        await job.progress(20.5)
        await sleep(800)
      },
    })
    await app.kernel.startJobs()
    const job = await app.kernel.enqueue('test.progress', {})
    await until('progress 10 stored', async () => Number((await rowOf(app.kernel, job.id)).progress) === 10)
    const started = Date.now()
    await sleep(250)
    expect(Number((await rowOf(app.kernel, job.id)).progress)).toBe(10)
    await until('progress 20 stored', async () => Number((await rowOf(app.kernel, job.id)).progress) === 20)
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
    // 20.5 was reported after 850 ms; the run lasts until 1650 ms.
    await sleep(600)
    expect(Number((await rowOf(app.kernel, job.id)).progress)).toBe(20)
    expect((await untilState(app.kernel, job.id, 'succeeded')).progress).toBe(100)
  })

  it('removes succeeded jobs older than keep_succeeded at start; keeps failed ones', async () => {
    const app = await appWith({ 'test.ok': async () => undefined }, { 'queue-inline': { keep_succeeded: 60 } })
    const kernel = app.kernel
    const queue = queueOf(kernel)
    const old = await queue.enqueue('test.ok', {})
    const recent = await queue.enqueue('test.ok', {})
    const oldFailed = await queue.enqueue('test.ok', {})
    const sqlite = kernel.config.database.url === ''
    const ago = new Date(Date.now() - 120_000)
    await knexOf(kernel)('jobs')
      .whereIn('id', [Number(old.id), Number(oldFailed.id)])
      .update({ updated_at: sqlite ? ago.getTime() : ago, live_key: null })
    await knexOf(kernel)('jobs')
      .where({ id: Number(old.id) })
      .update({ state: 'succeeded' })
    await knexOf(kernel)('jobs')
      .where({ id: Number(oldFailed.id) })
      .update({ state: 'failed' })
    await knexOf(kernel)('jobs')
      .where({ id: Number(recent.id) })
      .update({ state: 'succeeded', live_key: null })
    await kernel.startJobs()
    await until('old succeeded job removed', async () => (await queue.get(old.id)) === null)
    expect((await queue.get(recent.id))!.state).toBe('succeeded')
    expect((await queue.get(oldFailed.id))!.state).toBe('failed')
  })
})
