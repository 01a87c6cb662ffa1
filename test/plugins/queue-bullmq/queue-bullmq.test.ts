import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { BullmqQueue, type BullmqQueueOptions, MAX_PAYLOAD_BYTES } from '../../../plugins/queue-bullmq/index.js'
import { queueBullmqConfigSchema } from '../../../plugins/queue-bullmq/queue-bullmq.config.js'
import {
  type JobHandler,
  type JobRecord,
  type PluginDefinition,
  type QueuePort,
  type StartOptions,
  createLogger,
  definePlugin,
  loadConfig,
} from '../../../src/kernel/index.js'
import { packageRoot } from '../../../src/shared/package-root.js'
import { type TestApp, startApp } from '../../helpers/app.js'

/**
 * What queue-bullmq adds to the port's guarantees (test/conformance/queue-bullmq.test.ts): its
 * configuration and boot errors, serve not consuming unless asked, its Redis layout, the attempts
 * rule for crashed runs, cleanup. The Redis parts run when MEDIACTL_TEST_REDIS_URL is set.
 */

const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL
const prefix = `mediactl-test-${randomBytes(4).toString('hex')}`
/** The default plugins with the Redis queue instead of the inline one. */
const PLUGINS = ['root', 'platforms', 'identity', 'storage-fs', 'metadata', 'files', 'queue-bullmq']

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

/** The test plugin: declares the given job types with ctx.job. */
function jobsPlugin(handlers: Record<string, JobHandler>): PluginDefinition {
  return definePlugin({
    name: 'jobs-test',
    register(ctx) {
      for (const [type, handler] of Object.entries(handlers)) ctx.job(type, handler)
    },
  })
}

const untilState = (queue: QueuePort, id: string, state: JobRecord['state'], timeoutMs?: number) =>
  until(
    `job ${id} ${state}`,
    async () => {
      const job = await queue.get(id)
      return job?.state === state ? job : null
    },
    timeoutMs,
  )

describe('queue-bullmq configuration', () => {
  it('is what config/production.example.yaml uses, instead of queue-inline', () => {
    const { config } = loadConfig({ env: {}, file: join(packageRoot(), 'config/production.example.yaml') })
    expect(config.plugins).toContain('queue-bullmq')
    expect(config.plugins).not.toContain('queue-inline')
    expect(config.redis_url).toMatch(/^redis:\/\//)
    expect(queueBullmqConfigSchema.safeParse(config['queue-bullmq']).success).toBe(true)
  })

  it('refuses to boot without a Redis URL, saying where to set one', async () => {
    await expect(startApp({ config: { plugins: PLUGINS, redis_url: '' } })).rejects.toThrow(
      'queue-bullmq needs a Redis URL: set redis_url (MEDIACTL_REDIS_URL) or queue-bullmq.url',
    )
  })

  it('names its invalid keys', async () => {
    await expect(
      startApp({
        config: {
          plugins: PLUGINS,
          redis_url: 'redis://127.0.0.1:6379',
          'queue-bullmq': { prefix: 'app:', queue: 'a:b', lease: 0, bogus: 1 },
        },
      }),
    ).rejects.toThrow(
      /queue-bullmq\.prefix: without a trailing ":"[\s\S]*queue-bullmq\.queue[\s\S]*queue-bullmq\.lease/,
    )
  })
})

describe.skipIf(!REDIS_URL)('queue-bullmq with Redis (MEDIACTL_TEST_REDIS_URL)', () => {
  const queues: BullmqQueue[] = []
  const apps: TestApp[] = []
  const redis = REDIS_URL ? new Redis(REDIS_URL) : undefined
  const start = (over: Partial<StartOptions> = {}): StartOptions => ({
    concurrency: 1,
    timeLimitMs: 30_000,
    backoffMs: 50,
    ...over,
  })
  /** A queue with its own connections, as a process would have it. */
  const queue = (over: Partial<BullmqQueueOptions> = {}): BullmqQueue => {
    const made = new BullmqQueue({
      url: REDIS_URL!,
      prefix,
      queue: 'jobs',
      log: createLogger('silent'),
      consumesInServe: false,
      pollIntervalMs: 50,
      leaseMs: 1000,
      stalledIntervalMs: 1000,
      keepSucceededMs: 3600_000,
      ...over,
    })
    queues.push(made)
    return made
  }
  let counter = 0
  const freshType = (): string => `bullmq.t${++counter}`

  afterEach(async () => {
    for (const made of queues.splice(0)) await made.close()
    for (const app of apps.splice(0)) await app.close()
  })
  afterAll(async () => {
    const keys = await redis!.keys(`${prefix}:*`)
    if (keys.length) await redis!.del(...keys)
    await redis!.quit()
  })

  it('serve does not run the jobs; a worker (startJobs) does; consume_in_serve makes serve run them', async () => {
    const ran: string[] = []
    const plugin = jobsPlugin({ 'test.echo': async (job) => void ran.push(String(job.payload.n)) })
    const config = {
      plugins: PLUGINS,
      redis_url: REDIS_URL,
      'queue-bullmq': { prefix: `${prefix}-serve`, poll_interval: 0.05 },
    }
    const app = await startApp({ plugins: [plugin], config })
    apps.push(app)
    const port = app.kernel.services.ports.get('queue')
    expect(port.consumesInServe).toBe(false)
    const job = await app.kernel.enqueue('test.echo', { n: 1 })
    await sleep(300)
    expect((await port.get(job.id))!.state).toBe('waiting')
    expect(await app.kernel.startJobs({ concurrency: 1 })).toBe(true)
    await untilState(port, job.id, 'succeeded')
    expect(ran).toEqual(['1'])

    const consuming = await startApp({
      plugins: [plugin],
      config: { ...config, 'queue-bullmq': { ...config['queue-bullmq'], consume_in_serve: true } },
    })
    apps.push(consuming)
    const other = consuming.kernel.services.ports.get('queue')
    expect(other.consumesInServe).toBe(true)
    const second = await consuming.kernel.enqueue('test.echo', { n: 2 })
    await untilState(other, second.id, 'succeeded')
    expect(ran).toEqual(['1', '2'])
    for (const key of await redis!.keys(`${prefix}-serve:*`)) await redis!.del(key)
  })

  it('keeps each type in a queue of its own; ids come from one counter, listed newest first across types', async () => {
    const q = queue()
    const a = freshType()
    const b = `${freshType()}:sub`
    const first = await q.enqueue(a, { n: 1 })
    const second = await q.enqueue(b, { n: 2 })
    const third = await q.enqueue(a, { n: 3 })
    expect(Number(second.id)).toBeGreaterThan(Number(first.id))
    expect(Number(third.id)).toBeGreaterThan(Number(second.id))
    const mine = (await q.list({ limit: 1000 })).filter((job) => [a, b].includes(job.type))
    expect(mine.map((job) => job.id)).toEqual([third.id, second.id, first.id])
    // BullMQ's layout: <prefix>:<queue>/<type>:<job id>, a ":" of the type written "+".
    expect(await redis!.exists(`${prefix}:jobs/${a}:j${first.id}`)).toBe(1)
    expect(await redis!.exists(`${prefix}:jobs/${b.replace(':', '+')}:j${second.id}`)).toBe(1)
    expect(await redis!.sismember(`${prefix}:jobs:types`, b)).toBe(1)
  })

  it('refuses payloads that are not small JSON objects, and bad keys and attempts', async () => {
    const q = queue()
    const type = freshType()
    await expect(q.enqueue(type, [] as unknown as Record<string, unknown>)).rejects.toThrow(/JSON object/)
    await expect(q.enqueue(type, { big: 'x'.repeat(MAX_PAYLOAD_BYTES) })).rejects.toThrow(/larger than/)
    await expect(q.enqueue(type, {}, { key: '' })).rejects.toThrow(/key/)
    await expect(q.enqueue(type, {}, { maxAttempts: 0 })).rejects.toThrow(/maxAttempts/)
  })

  it('fails a job whose last attempt a crash interrupted, without running it again', async () => {
    const type = freshType()
    const gone = queue()
    let running!: () => void
    const started = new Promise<void>((resolve) => (running = resolve))
    // A handler ignoring its signal: its process "exits" (stop gives up) with the job running.
    await gone.start(
      new Map([
        [
          type,
          async () => {
            running()
            await new Promise(() => undefined)
          },
        ],
      ]),
      start(),
    )
    const survivor = queue()
    const job = await survivor.enqueue(type, {}, { maxAttempts: 1 })
    await started
    await gone.stop({ graceMs: 50 })
    let runs = 0
    await survivor.start(new Map([[type, async () => void runs++]]), start())
    const failed = await untilState(survivor, job.id, 'failed', 15_000)
    expect(failed).toMatchObject({
      attempts: 1,
      maxAttempts: 1,
      lastError: 'interrupted: the process running it stopped',
    })
    expect(runs).toBe(0)
  })

  it('removes succeeded jobs older than keep_succeeded as later ones complete; keeps failed ones', async () => {
    const q = queue({ keepSucceededMs: 1000 })
    const type = freshType()
    await q.start(
      new Map([
        [
          type,
          async (job) => {
            if (job.payload.fail) throw new Error('no')
          },
        ],
      ]),
      start(),
    )
    const old = await q.enqueue(type, {})
    const failed = await q.enqueue(type, { fail: true }, { maxAttempts: 1 })
    await untilState(q, old.id, 'succeeded')
    await untilState(q, failed.id, 'failed')
    await sleep(2100)
    const fresh = await q.enqueue(type, {})
    await untilState(q, fresh.id, 'succeeded')
    await until('the old job removed', async () => (await q.get(old.id)) === null)
    expect((await q.get(failed.id))!.state).toBe('failed')
    expect((await q.list({ state: 'succeeded', limit: 1000 })).some((job) => job.id === old.id)).toBe(false)
  })

  it('resets the progress and the last error of a retried job', async () => {
    const q = queue()
    const type = freshType()
    let fail = true
    await q.start(
      new Map([
        [
          type,
          async (job) => {
            await job.progress(60)
            await sleep(600)
            if (fail) throw new Error('not yet')
          },
        ],
      ]),
      start(),
    )
    const job = await q.enqueue(type, {}, { maxAttempts: 1 })
    const failed = await untilState(q, job.id, 'failed')
    expect(failed.progress).toBe(60)
    fail = false
    await q.stop()
    const retried = (await q.retry(job.id))!
    expect(retried).toMatchObject({ state: 'waiting', attempts: 0, progress: 0, lastError: null })
  })
})
