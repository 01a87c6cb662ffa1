import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootKernel } from '../../src/app/boot.js'
import { type Kernel, createLogger } from '../../src/kernel/index.js'
import { cli, cliJson, removeDir, tempDir } from './harness.js'
import type { JobView } from '../../src/app/jobs.js'

/**
 * `mediactl jobs list`, `jobs retry` and `jobs cancel`, on an instance whose `jobs` table
 * holds jobs in every state. The jobs are seeded in process through the instance's kernel
 * (`kernel.jobs`, the queue not consuming; states made with `kernel.jobs.cancel` or written
 * directly): the real type `encoding.encode`, about files that do not exist, so its
 * `onState` hook changes nothing.
 */

let dir: string
const opts = (): { cwd: string } => ({ cwd: dir })

const TYPE = 'encoding.encode'
/** The first line of the failed job's error is longer than the table's column (60). */
const LONG_ERROR = `ffmpeg exited with code 1: ${'x'.repeat(80)}\nmore details on the second line`
/** When the backing-off job tries again. */
const NEXT_TRY = new Date(Date.now() + 3600_000)

/** The jobs of the current seed, by role. */
interface Seeded {
  /** holiday-video: failed (no attempt left), key encode:999001 free. */
  failed: string
  /** holiday-video: waiting for its second try, holding encode:999001. */
  backoff: string
  /** lecture: running under another process's lease, 42.7 %. */
  running: string
  /** lecture: succeeded. */
  succeeded: string
  /** some-slug: waiting for its first run. */
  waiting: string
  /** trailer: cancelled by an operator. */
  cancelled: string
}
let ids: Seeded

/** A job as `mediactl jobs ... --json` prints it. */
type JobJson = JobView
const JOB_KEYS = [
  'attempts',
  'created_at',
  'file',
  'id',
  'key',
  'last_error',
  'max_attempts',
  'next_try',
  'payload',
  'progress',
  'state',
  'type',
  'updated_at',
]

/** Runs `work` with the instance's kernel, in process (jobs not started: nothing consumes). */
async function withKernel<T>(work: (kernel: Kernel) => Promise<T>): Promise<T> {
  const kernel = await bootKernel({ cwd: dir, env: {}, logger: createLogger('silent') })
  try {
    return await work(kernel)
  } finally {
    await kernel.close()
  }
}

/** Empties the jobs table and queues one job per role (oldest first: failed, ..., cancelled). */
async function seed(): Promise<void> {
  ids = await withKernel(async (kernel) => {
    const { jobs } = kernel
    const knex = kernel.em().getKnex()
    const at = (date: Date) => jobs.store.at(date)
    const update = (id: string, fields: Record<string, unknown>) =>
      knex('jobs')
        .where({ id: Number(id) })
        .update({ ...fields, updated_at: at(new Date()) })
    await knex('jobs').delete()
    const queue = async (fileId: number, subject: string, key?: string) =>
      (await jobs.enqueue(TYPE, { fileId }, { subject, key })).id

    const failed = await queue(999001, 'holiday-video', 'encode:999001')
    await update(failed, { state: 'failed', attempts: 3, last_error: LONG_ERROR, live_key: null })
    const backoff = await queue(999001, 'holiday-video', 'encode:999001')
    await update(backoff, { attempts: 1, last_error: 'the encoder crashed', run_after: at(NEXT_TRY) })
    const running = await queue(999003, 'lecture', 'encode:999003')
    await update(running, {
      state: 'running',
      attempts: 1,
      progress: 42.7,
      lease_owner: 'elsewhere:4242:abcd1234',
      lease_until: at(new Date(Date.now() + 3600_000)),
    })
    const succeeded = await queue(999004, 'lecture')
    await update(succeeded, { state: 'succeeded', attempts: 1, progress: 100, live_key: null })
    const waiting = await queue(999999, 'some-slug', 'encode:999999')
    const cancelled = await queue(999006, 'trailer', 'encode:999006')
    await jobs.cancel(cancelled)
    return { failed, backoff, running, succeeded, waiting, cancelled }
  })
}

async function listJson(args: string[] = []): Promise<JobJson[]> {
  return (await cliJson<{ jobs: JobJson[] }>(['jobs', 'list', ...args], opts())).jobs
}

async function jobJson(id: string): Promise<JobJson> {
  const job = (await listJson(['--limit', '10000'])).find((j) => j.id === id)
  if (!job) throw new Error(`job ${id} is not listed`)
  return job
}

/** `mediactl <args>` failing with exit code 1: its message, as text (stderr) and with --json (stdout). */
async function refused(args: string[]): Promise<string> {
  const [text, json] = await Promise.all([cli(args, opts()), cli([...args, '--json'], opts())])
  expect(text.code).toBe(1)
  expect(text.stdout).toBe('')
  const message = /^mediactl: (.*)\n$/.exec(text.stderr)?.[1]
  expect(message, text.stderr).toBeDefined()
  expect(json.code).toBe(1)
  expect(JSON.parse(json.stdout)).toEqual({ error: message })
  return message!
}

/** Each CLI call boots a process and a kernel: seconds on a loaded machine. */
const SLOW = { timeout: 120_000 }

beforeAll(async () => {
  dir = tempDir()
  await cliJson(['init', '--admin-email', 'admin@example.org'], opts())
})

afterAll(() => removeDir(dir))

describe('mediactl jobs list', SLOW, () => {
  beforeAll(seed)

  it('lists the jobs newest first (--json), each as a JobView', async () => {
    const jobs = await listJson()
    expect(jobs.map((job) => job.id)).toEqual([
      ids.cancelled,
      ids.waiting,
      ids.succeeded,
      ids.running,
      ids.backoff,
      ids.failed,
    ])
    for (const job of jobs) {
      expect(Object.keys(job).sort()).toEqual(JOB_KEYS)
      expect(job.type).toBe(TYPE)
      expect(new Date(job.created_at).toISOString()).toBe(job.created_at)
      expect(new Date(job.updated_at).toISOString()).toBe(job.updated_at)
    }
    const byId = new Map(jobs.map((job) => [job.id, job]))
    expect(byId.get(ids.waiting)).toMatchObject({
      state: 'waiting',
      file: 'some-slug',
      attempts: 0,
      max_attempts: 3,
      progress: 0,
      last_error: null,
      key: 'encode:999999',
      payload: { fileId: 999999 },
    })
    // A waiting job says when it runs: now for a new one, later while it backs off.
    expect(Date.parse(byId.get(ids.waiting)!.next_try!)).toBeLessThanOrEqual(Date.now())
    expect(byId.get(ids.backoff)).toMatchObject({
      state: 'waiting',
      file: 'holiday-video',
      attempts: 1,
      last_error: 'the encoder crashed',
      next_try: NEXT_TRY.toISOString(),
    })
    expect(byId.get(ids.running)).toMatchObject({ state: 'running', attempts: 1, progress: 42.7, next_try: null })
    expect(byId.get(ids.succeeded)).toMatchObject({ state: 'succeeded', progress: 100, next_try: null, key: null })
    expect(byId.get(ids.failed)).toMatchObject({
      state: 'failed',
      file: 'holiday-video',
      attempts: 3,
      max_attempts: 3,
      last_error: LONG_ERROR,
      next_try: null,
      key: 'encode:999001',
    })
    expect(byId.get(ids.cancelled)).toMatchObject({
      state: 'cancelled',
      file: 'trailer',
      last_error: 'cancelled by an operator',
      next_try: null,
    })
  })

  it('prints a table: file, kind, state, attempt, progress, next try, first line of the last error', async () => {
    const result = await cli(['jobs', 'list'], opts())
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^JOB +FILE +KIND +STATE +ATTEMPT +PROGRESS +NEXT TRY +LAST ERROR$/)
    expect(lines).toHaveLength(7)
    const row = (...cells: string[]) => new RegExp(`^${cells.join(' +')}$`)
    const kind = 'encoding\\.encode'
    expect(lines[1]).toMatch(row(ids.cancelled, 'trailer', kind, 'cancelled', '0/3', '0%', 'cancelled by an operator'))
    // No next try shown for a job that has not run yet: it runs as soon as a process takes it.
    expect(lines[2]).toMatch(row(ids.waiting, 'some-slug', kind, 'waiting', '0/3', '0%'))
    expect(lines[3]).toMatch(row(ids.succeeded, 'lecture', kind, 'succeeded', '1/3', '100%'))
    expect(lines[4]).toMatch(row(ids.running, 'lecture', kind, 'running', '1/3', '42%'))
    const nextTry = NEXT_TRY.toISOString().replace(/\.\d+Z$/, 'Z')
    expect(lines[5]).toMatch(
      row(ids.backoff, 'holiday-video', kind, 'waiting', '1/3', '0%', nextTry, 'the encoder crashed'),
    )
    const cut = `${LONG_ERROR.slice(0, 59)}…`
    expect(lines[6]).toMatch(row(ids.failed, 'holiday-video', kind, 'failed', '3/3', '0%', cut))
    expect(lines[6]).not.toContain('second line')
  })

  it('filters by state (--state) and limits the count (--limit)', async () => {
    const [failed, waiting, two, none] = await Promise.all([
      listJson(['--state', 'failed']),
      listJson(['--state', 'waiting']),
      listJson(['--limit', '2']),
      cli(['jobs', 'list', '--state', 'running', '--limit', '1'], opts()),
    ])
    expect(failed.map((job) => job.id)).toEqual([ids.failed])
    expect(waiting.map((job) => job.id)).toEqual([ids.waiting, ids.backoff])
    expect(two.map((job) => job.id)).toEqual([ids.cancelled, ids.waiting])
    expect(none.code).toBe(0)
    expect(none.stdout.trimEnd().split('\n')).toHaveLength(2)
  })

  it('filters by file (--file), alone or with --state', async () => {
    const [holiday, lecture, nobody, text] = await Promise.all([
      listJson(['--file', 'holiday-video']),
      listJson(['--file', 'lecture', '--state', 'running']),
      listJson(['--file', 'nobody']),
      cli(['jobs', 'list', '--file', 'some-slug'], opts()),
    ])
    expect(holiday.map((job) => job.id)).toEqual([ids.backoff, ids.failed])
    expect(lecture.map((job) => job.id)).toEqual([ids.running])
    expect(nobody).toEqual([])
    expect(text.code).toBe(0)
    const lines = text.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toMatch(new RegExp(`^${ids.waiting} +some-slug +encoding\\.encode +waiting`))
  })

  it('says when nothing matches', async () => {
    const [noJobs, noFailed] = await Promise.all([
      cli(['jobs', 'list', '--file', 'nobody'], opts()),
      cli(['jobs', 'list', '--state', 'failed', '--file', 'lecture'], opts()),
    ])
    expect(noJobs.stdout).toBe('No jobs.\n')
    expect(noFailed.stdout).toBe('No failed jobs.\n')
  })

  it('reads the instance named by --config, from anywhere', async () => {
    const elsewhere = tempDir()
    try {
      const result = await cli(['jobs', 'list', '--config', `${dir}/mediactl.yaml`, '--json'], { cwd: elsewhere })
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect((JSON.parse(result.stdout) as { jobs: JobJson[] }).jobs).toHaveLength(6)
    } finally {
      removeDir(elsewhere)
    }
  })

  it('refuses an unknown state and a bad limit (usage errors)', async () => {
    const state = await cli(['jobs', 'list', '--state', 'stuck'], opts())
    expect(state.code).toBe(2)
    expect(state.stderr).toContain('Expected --state=stuck to be one of')
    const limit = await cli(['jobs', 'list', '--limit', '0'], opts())
    expect(limit.code).toBe(2)
    expect(limit.stderr).toContain('--limit')
  })
})

describe('mediactl jobs cancel', SLOW, () => {
  beforeAll(seed)

  it('cancels a running job named by its file (its live job), in text', async () => {
    const result = await cli(['jobs', 'cancel', 'lecture'], opts())
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`Job ${ids.running} (${TYPE} of lecture) is cancelled.\n`)
    expect(await jobJson(ids.running)).toMatchObject({
      state: 'cancelled',
      last_error: 'cancelled by an operator',
      key: 'encode:999003',
    })
    expect(await jobJson(ids.succeeded)).toMatchObject({ state: 'succeeded' })
  })

  it('cancels a waiting job named by its number (--json: the job)', async () => {
    const job = await cliJson<JobJson>(['jobs', 'cancel', ids.waiting], opts())
    expect(Object.keys(job).sort()).toEqual(JOB_KEYS)
    expect(job).toMatchObject({
      id: ids.waiting,
      type: TYPE,
      state: 'cancelled',
      file: 'some-slug',
      attempts: 0,
      last_error: 'cancelled by an operator',
      next_try: null,
      key: 'encode:999999',
      payload: { fileId: 999999 },
    })
    expect((await listJson(['--state', 'waiting'])).map((j) => j.id)).toEqual([ids.backoff])
  })

  it('refuses a finished job', async () => {
    // The last one was cancelled by the test above; its file has no live job left.
    const messages = await Promise.all([
      refused(['jobs', 'cancel', ids.succeeded]),
      refused(['jobs', 'cancel', ids.failed]),
      refused(['jobs', 'cancel', 'some-slug']),
    ])
    expect(messages).toEqual([
      `job ${ids.succeeded} is succeeded: only waiting or running jobs can be cancelled`,
      `job ${ids.failed} is failed: only waiting or running jobs can be cancelled`,
      `job ${ids.waiting} is cancelled: only waiting or running jobs can be cancelled`,
    ])
    expect(await jobJson(ids.succeeded)).toMatchObject({ state: 'succeeded' })
  })

  it('refuses an unknown target, saying how to list the jobs', async () => {
    const messages = await Promise.all([
      refused(['jobs', 'cancel', 'no-such-file']),
      refused(['jobs', 'cancel', '4242']),
    ])
    expect(messages).toEqual([
      'no job of a file "no-such-file" and no job number no-such-file: list them with "mediactl jobs list"',
      'no job of a file "4242" and no job number 4242: list them with "mediactl jobs list"',
    ])
  })

  it('needs a target (usage error)', async () => {
    const result = await cli(['jobs', 'cancel'], opts())
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Missing 1 required arg')
  })
})

describe('mediactl jobs retry', SLOW, () => {
  beforeAll(seed)

  it('queues a cancelled job again, named by its file (--json), attempts from 0', async () => {
    const job = await cliJson<JobJson>(['jobs', 'retry', 'trailer'], opts())
    expect(Object.keys(job).sort()).toEqual(JOB_KEYS)
    expect(job).toMatchObject({
      id: ids.cancelled,
      type: TYPE,
      state: 'waiting',
      file: 'trailer',
      attempts: 0,
      max_attempts: 3,
      progress: 0,
      key: 'encode:999006',
    })
    expect(Date.parse(job.next_try!)).toBeLessThanOrEqual(Date.now())
    expect((await listJson(['--state', 'waiting'])).map((j) => j.id)).toContain(ids.cancelled)
  })

  it('refuses a live (or succeeded) job', async () => {
    const messages = await Promise.all([
      refused(['jobs', 'retry', ids.backoff]),
      refused(['jobs', 'retry', ids.running]),
      // A file whose jobs are all live: its newest job is named.
      refused(['jobs', 'retry', 'some-slug']),
      refused(['jobs', 'retry', ids.succeeded]),
    ])
    expect(messages).toEqual([
      `job ${ids.backoff} is waiting: only failed or cancelled jobs can be retried`,
      `job ${ids.running} is running: only failed or cancelled jobs can be retried`,
      `job ${ids.waiting} is waiting: only failed or cancelled jobs can be retried`,
      `job ${ids.succeeded} is succeeded: only failed or cancelled jobs can be retried`,
    ])
  })

  it('refuses a failed job whose work another live job of the same key does', async () => {
    // holiday-video: its failed job is preferred; the backing-off one holds the key.
    expect(await refused(['jobs', 'retry', 'holiday-video'])).toBe(
      `job ${ids.backoff} with the same key "encode:999001" is waiting: it does the work already`,
    )
    expect(await jobJson(ids.failed)).toMatchObject({ state: 'failed', attempts: 3 })
  })

  it('queues a failed job again by its number once the key is free, in text', async () => {
    await cliJson(['jobs', 'cancel', ids.backoff], opts())
    const result = await cli(['jobs', 'retry', ids.failed], opts())
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`Job ${ids.failed} (${TYPE} of holiday-video) is waiting again: 3 attempt(s).\n`)
    expect(await jobJson(ids.failed)).toMatchObject({
      state: 'waiting',
      attempts: 0,
      progress: 0,
      key: 'encode:999001',
    })
    // Now the cancelled one is the file's newest retryable job, and the retried one holds the key.
    expect(await refused(['jobs', 'retry', 'holiday-video'])).toBe(
      `job ${ids.failed} with the same key "encode:999001" is waiting: it does the work already`,
    )
  })

  it('refuses an unknown target, saying how to list the jobs', async () => {
    const messages = await Promise.all([refused(['jobs', 'retry', 'no-such-file']), refused(['jobs', 'retry', '4242'])])
    expect(messages).toEqual([
      'no job of a file "no-such-file" and no job number no-such-file: list them with "mediactl jobs list"',
      'no job of a file "4242" and no job number 4242: list them with "mediactl jobs list"',
    ])
  })
})

describe('--help', SLOW, () => {
  it('jobs list', async () => {
    const result = await cli(['jobs', 'list', '--help'], opts())
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('List background jobs (encoding, logo insertion), newest first.')
    expect(result.stdout).toMatch(/--state=<option>\s+Only jobs in this state/)
    expect(result.stdout).toContain('waiting|running|succeeded|failed|cancelled')
    expect(result.stdout).toMatch(/--file=<value>\s+Only the jobs of this file \(its slug\)/)
    expect(result.stdout).toContain('--limit=<value>')
    expect(result.stdout).toContain('--json')
    expect(result.stdout).toContain('$ mediactl jobs list --file holiday-video')
  })

  it('jobs retry', async () => {
    const result = await cli(['jobs', 'retry', '--help'], opts())
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Queue a failed or cancelled job again.')
    expect(result.stdout).toContain('$ mediactl jobs retry TARGET')
    expect(result.stdout).toMatch(/TARGET\s+The file slug, or the job number/)
    expect(result.stdout).toContain('$ mediactl jobs retry holiday-video')
  })

  it('jobs cancel', async () => {
    const result = await cli(['jobs', 'cancel', '--help'], opts())
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Cancel a waiting or running job.')
    expect(result.stdout).toContain('$ mediactl jobs cancel TARGET')
    expect(result.stdout).toMatch(/TARGET\s+The file slug, or the job number/)
    expect(result.stdout).toContain('$ mediactl jobs cancel 42 --json')
  })
})
