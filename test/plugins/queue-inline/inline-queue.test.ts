import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pino } from 'pino'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CATALOG } from '../../../src/catalog.js'
import { type JobHandler, Kernel, loadConfig } from '../../../src/kernel/index.js'
import { Cluster, idle, until } from '../../conformance/queue.conformance.js'

/**
 * What queue-inline adds to the jobs guarantees (test/conformance/queue-inline.test.ts): its
 * configuration, and how its poller learns of due jobs (a look every poll_interval; at once for
 * jobs this process queued and when a run ends). SQLite, and PostgreSQL when
 * MEDIACTL_TEST_DATABASE_URL is set.
 */

const dirs: string[] = []
const kernels: Kernel[] = []

afterEach(async () => {
  for (const kernel of kernels.splice(0)) await kernel.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** mediactl's default plugins on a fresh data dir (not migrated), its warnings kept in `lines`. */
async function bootDefault(overrides: Record<string, unknown>, lines: string[] = []): Promise<Kernel> {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-inline-'))
  dirs.push(dir)
  const { config } = loadConfig({ env: {}, cwd: dir, overrides: { data_dir: dir, ...overrides } })
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) })
  const kernel = await Kernel.boot({ config, catalog: CATALOG, logger })
  kernels.push(kernel)
  return kernel
}

const messages = (lines: string[]): string[] => lines.map((line) => String((JSON.parse(line) as { msg: unknown }).msg))

describe('queue-inline configuration', () => {
  it('accepts the keys that moved to the jobs section (lease, keep_succeeded), warning where they went', async () => {
    const lines: string[] = []
    const kernel = await bootDefault({ 'queue-inline': { lease: 5, keep_succeeded: 60, poll_interval: 0.2 } }, lines)
    expect(messages(lines).filter((msg) => msg.startsWith('queue-inline.'))).toEqual([
      'queue-inline.lease is ignored: set jobs.lease instead (docs/configuration.md)',
      'queue-inline.keep_succeeded is ignored: set jobs.keep_finished instead (docs/configuration.md)',
    ])
    // Ignored: the jobs section decides.
    expect(kernel.config.jobs).toMatchObject({ lease: 30, keep_finished: 604800 })
  })

  it('refuses unknown keys', async () => {
    await expect(bootDefault({ 'queue-inline': { bogus: 1 } })).rejects.toThrow(/queue-inline/)
  })

  it('is polled; serve runs the jobs unless consume_in_serve is false', async () => {
    const queue = (await bootDefault({})).services.ports.get('queue')
    expect(queue.polls).toBe(true)
    expect(queue.consumesInServe).toBe(true)
    await expect(queue.check()).resolves.toBeUndefined()
    const workersOnly = await bootDefault({ 'queue-inline': { consume_in_serve: false } })
    expect(workersOnly.services.ports.get('queue').consumesInServe).toBe(false)
  })
})

describe('queue-inline: the poller', () => {
  let cluster: Cluster
  let counter = 0
  const fresh = (): string => `inline.t${++counter}`
  beforeAll(async () => {
    // A long poll: what these tests see happen does not wait for it.
    cluster = await Cluster.open({ plugin: 'queue-inline', config: { 'queue-inline': { poll_interval: 30 } } })
  })
  afterEach(async () => {
    await cluster?.tidy()
  })
  afterAll(async () => {
    await cluster?.close()
  })
  const succeeded = (id: string, timeoutMs?: number) =>
    until(`job ${id} succeeded`, async () => (await cluster.get(id))?.state === 'succeeded', timeoutMs)

  it('starts a job this process queued at once, and the next one as soon as a run ends, without waiting for the poll', async () => {
    const t = fresh()
    const ran: string[] = []
    const handler: JobHandler = async (job) => void ran.push(job.id)
    const k = await cluster.boot({ [t]: handler })
    await k.startJobs({ concurrency: 1 })
    const jobs = await Promise.all([1, 2, 3].map((n) => k.jobs.enqueue(t, { n })))
    for (const job of jobs) await succeeded(job.id, 5000)
    // In queue order: the ids the database gave (three inserts at once may number them in any order of the calls).
    expect(ran).toEqual(jobs.map((job) => job.id).sort((a, b) => Number(a) - Number(b)))
  })

  it('finds the jobs another process queued at its next look', async () => {
    const t = fresh()
    const producer = await cluster.boot({ [t]: idle })
    const consumer = await cluster.boot(
      { [t]: async () => undefined },
      { config: { 'queue-inline': { poll_interval: 0.1 } } },
    )
    await consumer.startJobs({ concurrency: 1 })
    const job = await producer.jobs.enqueue(t, {})
    await succeeded(job.id, 5000)
  })
})
