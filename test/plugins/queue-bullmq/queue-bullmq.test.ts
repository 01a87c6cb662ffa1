import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import type { ChildProcess } from 'node:child_process'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { freePort, startRedis, stopRedis } from '../../helpers/redis-server.js'
import { queueBullmqConfigSchema } from '../../../plugins/queue-bullmq/queue-bullmq.config.js'
import { CATALOG } from '../../../src/catalog.js'
import { type JobRecord, Kernel, loadConfig } from '../../../src/kernel/index.js'
import { packageRoot } from '../../../src/shared/package-root.js'
import { Cluster, dropPrefix, idle, until } from '../../conformance/queue.conformance.js'

/**
 * What queue-bullmq adds to the jobs guarantees (test/conformance/queue-bullmq.test.ts): its
 * configuration and boot errors, serve not consuming unless asked, and that Redis holds nothing
 * the database does not (a Redis that lost its keys loses no job). The Redis parts run when
 * MEDIACTL_TEST_REDIS_URL is set; the database is SQLite, or PostgreSQL with MEDIACTL_TEST_DATABASE_URL.
 */

const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL
/** The default plugins with the Redis queue instead of the inline one. */
const PLUGINS = ['root', 'platforms', 'identity', 'storage-fs', 'metadata', 'files', 'queue-bullmq']

const dirs: string[] = []
const kernels: Kernel[] = []

afterEach(async () => {
  for (const kernel of kernels.splice(0)) await kernel.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** mediactl's plugins with queue-bullmq on a fresh data dir (not migrated), its warnings kept in `lines`. */
async function bootWith(overrides: Record<string, unknown>, lines: string[] = []): Promise<Kernel> {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-bullmq-'))
  dirs.push(dir)
  const { config } = loadConfig({
    env: {},
    cwd: dir,
    overrides: { data_dir: dir, plugins: PLUGINS, redis_url: 'redis://127.0.0.1:1', ...overrides },
  })
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) })
  const kernel = await Kernel.boot({ config, catalog: CATALOG, logger })
  kernels.push(kernel)
  return kernel
}

const messages = (lines: string[]): string[] => lines.map((line) => String((JSON.parse(line) as { msg: unknown }).msg))

describe('queue-bullmq configuration', () => {
  it('is what config/production.example.yaml uses, instead of queue-inline', () => {
    const { config } = loadConfig({ env: {}, file: join(packageRoot(), 'config/production.example.yaml') })
    expect(config.plugins).toContain('queue-bullmq')
    expect(config.plugins).not.toContain('queue-inline')
    expect(config.redis_url).toMatch(/^redis:\/\//)
    expect(queueBullmqConfigSchema.safeParse(config['queue-bullmq']).success).toBe(true)
  })

  it('refuses to boot without a Redis URL, saying where to set one', async () => {
    await expect(bootWith({ redis_url: '' })).rejects.toThrow(
      'queue-bullmq needs a Redis URL: set redis_url (MEDIACTL_REDIS_URL) or queue-bullmq.url',
    )
  })

  it('names its invalid keys', async () => {
    await expect(bootWith({ 'queue-bullmq': { prefix: 'app:', queue: 'a:b', bogus: 1 } })).rejects.toThrow(
      /queue-bullmq\.prefix: without a trailing ":"[\s\S]*queue-bullmq\.queue[\s\S]*bogus/,
    )
  })

  it('accepts the keys that moved (lease, keep_succeeded, poll_interval), warning where they went', async () => {
    const lines: string[] = []
    const kernel = await bootWith({ 'queue-bullmq': { lease: 5, keep_succeeded: 60, poll_interval: 0.1 } }, lines)
    expect(messages(lines).filter((msg) => msg.startsWith('queue-bullmq.'))).toEqual([
      'queue-bullmq.poll_interval is ignored: set nothing (signals are delivered at once) instead (docs/configuration.md)',
      'queue-bullmq.lease is ignored: set jobs.lease instead (docs/configuration.md)',
      'queue-bullmq.keep_succeeded is ignored: set jobs.keep_finished instead (docs/configuration.md)',
    ])
    expect(kernel.config.jobs).toMatchObject({ lease: 30, keep_finished: 604800 })
  })

  it('is not polled; serve leaves the jobs to workers unless consume_in_serve', async () => {
    const queue = (await bootWith({})).services.ports.get('queue')
    expect(queue.polls).toBe(false)
    expect(queue.consumesInServe).toBe(false)
    const serving = await bootWith({ 'queue-bullmq': { consume_in_serve: true } })
    expect(serving.services.ports.get('queue').consumesInServe).toBe(true)
  })

  it('check throws while Redis does not answer', async () => {
    const queue = (await bootWith({ redis_url: 'redis://127.0.0.1:1' })).services.ports.get('queue')
    await expect(queue.check()).rejects.toThrow()
  })
})

describe.skipIf(!REDIS_URL)('queue-bullmq with Redis (MEDIACTL_TEST_REDIS_URL)', () => {
  const prefix = `mediactl-test-${randomBytes(4).toString('hex')}`
  let cluster: Cluster
  let redis: Redis
  let counter = 0
  const fresh = (): string => `bullmq.t${++counter}`
  const untilState = (id: string, state: JobRecord['state'], timeoutMs?: number): Promise<JobRecord> =>
    until(
      `job ${id} ${state}`,
      async () => {
        const job = await cluster.get(id)
        return job?.state === state ? job : null
      },
      timeoutMs,
    )

  beforeAll(async () => {
    redis = new Redis(REDIS_URL!)
    cluster = await Cluster.open({
      plugin: 'queue-bullmq',
      config: { redis_url: REDIS_URL, 'queue-bullmq': { prefix, stalled_interval: 1 } },
      cleanup: () => dropPrefix(REDIS_URL!, prefix),
    })
  })
  afterEach(async () => {
    await cluster?.tidy()
  })
  afterAll(async () => {
    await cluster?.close()
    await redis?.quit()
  })

  it('check answers while Redis does', async () => {
    await expect(cluster.admin.services.ports.get('queue').check()).resolves.toBeUndefined()
  })

  it('loses no job when Redis loses its keys: waiting jobs are signalled again at start and by the reconciliation', async () => {
    const t = fresh()
    const runs: { id: string; attempt: number }[] = []
    const producer = await cluster.boot({ [t]: idle })
    // Queued while no worker runs: its signal waits in Redis, and is lost with it.
    const early = await producer.jobs.enqueue(t, {})
    const earlySignal = `${prefix}:jobs:${early.id}-${early.runAfter.getTime()}`
    await until('the signal of the early job in Redis', async () => (await redis.exists(earlySignal)) === 1)
    await dropPrefix(REDIS_URL!, prefix)

    const worker = await cluster.boot(
      {
        [t]: async (job) => {
          runs.push({ id: job.id, attempt: job.attempt })
          if (job.payload.fail && job.attempt === 1) throw new Error('the first try fails')
        },
      },
      // No periodic reconciliation: the test says when.
      { config: { jobs: { backoff: 1, reconcile_interval: 3600 } } },
    )
    // Starting reconciles: the early job is signalled again.
    await worker.startJobs({ concurrency: 2 })
    expect(await untilState(early.id, 'succeeded')).toMatchObject({ attempts: 1 })

    // A job waiting out its backoff: its next signal is a delayed one in Redis.
    const job = await producer.jobs.enqueue(t, { fail: true })
    const waiting = await until('the first try failed', async () => {
      const now = await cluster.get(job.id)
      return now?.state === 'waiting' && now.attempts === 1 ? now : null
    })
    const due = waiting.runAfter.getTime()
    await until('its next signal in Redis', async () => (await redis.exists(`${prefix}:jobs:${job.id}-${due}`)) === 1)
    await dropPrefix(REDIS_URL!, prefix)
    // Past its next try, nobody was told: it waits.
    await until('a second past its next try', () => Date.now() > due + 1000, 5000)
    expect(await cluster.get(job.id)).toMatchObject({ state: 'waiting', attempts: 1 })
    // The reconciliation signals it again (twice: signals are idempotent, it runs once).
    await producer.jobs.reconcileNow()
    await producer.jobs.reconcileNow()
    expect(await untilState(job.id, 'succeeded')).toMatchObject({ attempts: 2 })
    expect(runs).toEqual([
      { id: early.id, attempt: 1 },
      { id: job.id, attempt: 1 },
      { id: job.id, attempt: 2 },
    ])
  })

  it('leaves no signal in Redis once the jobs ran', async () => {
    const t = fresh()
    const worker = await cluster.boot({
      [t]: async (job) => {
        if (job.payload.fail && job.attempt === 1) throw new Error('the first try fails')
      },
    })
    await worker.startJobs({ concurrency: 2 })
    const jobs = await Promise.all([{}, { fail: true }, {}].map((payload) => worker.jobs.enqueue(t, payload)))
    for (const job of jobs) await untilState(job.id, 'succeeded')
    const connection = new Redis(REDIS_URL!, { maxRetriesPerRequest: null })
    const signals = new Queue('jobs', { connection, prefix })
    try {
      await until('no signal left', async () => {
        const counts = await signals.getJobCounts('wait', 'delayed', 'active', 'prioritized', 'completed', 'failed')
        return Object.values(counts).every((count) => count === 0)
      })
    } finally {
      await signals.close()
      connection.disconnect()
    }
  })
})

/**
 * Redis restarted empty: the signals waiting in it are gone (here, a retry's delayed signal),
 * and the transport's return (`onBack`) signals the waiting jobs again at once: the
 * reconciliation is an hour away here. A redis-server of the test's own, which the test kills.
 */
describe('queue-bullmq when its Redis comes back empty', () => {
  let server: ChildProcess | undefined
  let cluster: Cluster
  let port = 0

  beforeAll(async () => {
    port = await freePort()
    server = await startRedis(port)
    cluster = await Cluster.open({
      plugin: 'queue-bullmq',
      config: { redis_url: `redis://127.0.0.1:${port}`, 'queue-bullmq': { stalled_interval: 1 } },
    })
  })
  afterAll(async () => {
    await cluster?.close()
    await stopRedis(server)
  })

  it('signals the waiting jobs again as soon as Redis answers, not at the next reconciliation', async () => {
    const attempts: number[] = []
    const handlers = {
      'bullmq.retried': async (job: { attempt: number }) => {
        attempts.push(job.attempt)
        if (job.attempt === 1) throw new Error('the first try fails')
      },
    }
    // Its retry is due 5 s after the first try; the reconciliation would come in an hour.
    const config = { jobs: { backoff: 5, reconcile_interval: 3600 } }
    const worker = await cluster.boot(handlers, { config })
    await worker.startJobs({ concurrency: 1 })
    const job = await worker.jobs.enqueue('bullmq.retried', {})
    const waiting = await until('the first try failed', async () => {
      const now = await cluster.get(job.id)
      return now?.state === 'waiting' && now.attempts === 1 ? now : null
    })
    const probe = new Redis(`redis://127.0.0.1:${port}`)
    const signal = `mediactl:jobs:${job.id}-${waiting.runAfter.getTime()}`
    await until('its delayed signal in Redis', async () => (await probe.exists(signal)) === 1).finally(() =>
      probe.disconnect(),
    )
    await stopRedis(server)
    server = await startRedis(port)
    const done = await until(
      'the retry run',
      async () => ((await cluster.get(job.id))?.state === 'succeeded' ? true : null),
      20_000,
    )
    expect(done).toBe(true)
    expect(attempts).toEqual([1, 2])
  })
})
