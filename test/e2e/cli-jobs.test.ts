import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootKernel } from '../../src/app/boot.js'
import { type Kernel, createLogger } from '../../src/kernel/index.js'
import { cli, cliJson, removeDir, tempDir } from './harness.js'

/** `mediactl jobs list` and `mediactl jobs retry`, on an instance whose queue holds a few jobs. */

let dir: string
const opts = (): { cwd: string } => ({ cwd: dir })
const ids: Record<'encode' | 'failed' | 'plain', string> = { encode: '', failed: '', plain: '' }

/** Runs `work` with the instance's kernel, in process. */
async function withKernel<T>(work: (kernel: Kernel) => Promise<T>): Promise<T> {
  const kernel = await bootKernel({ cwd: dir, env: {}, logger: createLogger('silent') })
  try {
    return await work(kernel)
  } finally {
    await kernel.close()
  }
}

interface JobJson {
  id: string
  type: string
  state: string
  attempts: number
  max_attempts: number
  progress: number
  file: string | null
  key: string | null
  last_error: string | null
  payload: Record<string, unknown>
}

beforeAll(async () => {
  dir = tempDir()
  await cliJson(['init', '--admin-email', 'admin@example.org'], opts())
  // The queue port directly: no plugin of the catalog declares jobs yet.
  await withKernel(async (kernel) => {
    const queue = kernel.services.ports.get('queue')
    ids.failed = (await queue.enqueue('test.fail', { file: 'abc' }, { maxAttempts: 1 })).id
    await queue.start(
      new Map([
        [
          'test.fail',
          async () => {
            throw new Error('ffmpeg exited with code 1\nmore details on the second line')
          },
        ],
      ]),
      { concurrency: 1, timeLimitMs: 10_000, backoffMs: 10 },
    )
    for (let i = 0; i < 500 && (await queue.get(ids.failed))!.state !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    await queue.stop()
    ids.encode = (await queue.enqueue('media.encode', { fileId: 17 }, { key: 'encode:17' })).id
    ids.plain = (await queue.enqueue('media.other', {})).id
  })
})

afterAll(() => removeDir(dir))

describe('mediactl jobs list', () => {
  it('lists the jobs newest first (--json)', async () => {
    const { jobs } = await cliJson<{ jobs: JobJson[] }>(['jobs', 'list'], opts())
    expect(jobs.map((job) => job.id)).toEqual([ids.plain, ids.encode, ids.failed])
    expect(jobs[1]).toMatchObject({
      type: 'media.encode',
      state: 'waiting',
      attempts: 0,
      max_attempts: 3,
      progress: 0,
      file: '17',
      key: 'encode:17',
      last_error: null,
      payload: { fileId: 17 },
    })
    expect(jobs[2]).toMatchObject({
      type: 'test.fail',
      state: 'failed',
      attempts: 1,
      max_attempts: 1,
      file: 'abc',
      last_error: 'ffmpeg exited with code 1\nmore details on the second line',
    })
  })

  it('prints a table: attempts, progress, file, the first line of the last error', async () => {
    const result = await cli(['jobs', 'list'], opts())
    expect(result.code).toBe(0)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID +TYPE +STATE +ATTEMPTS +PROGRESS +FILE +LAST ERROR$/)
    expect(lines).toHaveLength(4)
    expect(lines[2]).toMatch(new RegExp(`^${ids.encode} +media\\.encode +waiting +0/3 +0% +17$`))
    expect(lines[3]).toMatch(
      new RegExp(`^${ids.failed} +test\\.fail +failed +1/1 +0% +abc +ffmpeg exited with code 1$`),
    )
  })

  it('filters by state and limits the count', async () => {
    const failed = await cliJson<{ jobs: JobJson[] }>(['jobs', 'list', '--state', 'failed'], opts())
    expect(failed.jobs.map((job) => job.id)).toEqual([ids.failed])
    const one = await cliJson<{ jobs: JobJson[] }>(['jobs', 'list', '--limit', '1'], opts())
    expect(one.jobs.map((job) => job.id)).toEqual([ids.plain])
    const none = await cli(['jobs', 'list', '--state', 'running'], opts())
    expect(none.stdout).toBe('No running jobs.\n')
  })

  it('refuses an unknown state (usage error)', async () => {
    const result = await cli(['jobs', 'list', '--state', 'stuck'], opts())
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Expected --state=stuck to be one of')
  })
})

describe('mediactl jobs retry', () => {
  it('refuses a job that is not failed, and an unknown one', async () => {
    const waiting = await cli(['jobs', 'retry', ids.encode], opts())
    expect(waiting.code).toBe(1)
    expect(waiting.stderr).toBe(`mediactl: job ${ids.encode} is waiting, not failed: only failed jobs can be retried\n`)
    const unknown = await cli(['jobs', 'retry', '4242', '--json'], opts())
    expect(unknown.code).toBe(1)
    expect(JSON.parse(unknown.stdout)).toEqual({ error: 'no job "4242": list them with "mediactl jobs list"' })
  })

  it('queues a failed job again (--json), attempts from 0', async () => {
    const job = await cliJson<JobJson>(['jobs', 'retry', ids.failed], opts())
    expect(job).toMatchObject({ id: ids.failed, type: 'test.fail', state: 'waiting', attempts: 0, max_attempts: 1 })
    const { jobs } = await cliJson<{ jobs: JobJson[] }>(['jobs', 'list', '--state', 'waiting'], opts())
    expect(jobs.map((j) => j.id)).toContain(ids.failed)
  })

  it('says so in text', async () => {
    await withKernel(async (kernel) => {
      await kernel
        .em()
        .getKnex()('jobs')
        .where({ id: Number(ids.failed) })
        .update({ state: 'failed' })
    })
    const result = await cli(['jobs', 'retry', ids.failed], opts())
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`Job ${ids.failed} (test.fail) is waiting again: 1 attempt(s).\n`)
  })
})
