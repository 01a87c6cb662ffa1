import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { freshDatabase } from '../helpers/database.js'
import { DigestClient } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import {
  FAST_ENCODER,
  digestBytes,
  ffprobe,
  makeMedia,
  uploadMedia,
  waitForStatus,
} from '../plugins/encoding/encoding.helpers.js'
import { type Running, type Server, cli, cliJson, removeDir, serve, start, tempDir } from './harness.js'

const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL

/** The media pipeline with the given queue backend. */
const plugins = (queue: string): string =>
  `plugins: [root, platforms, identity, storage-fs, metadata, files, encoder-ffmpeg, ${queue}, encoding]`

interface JobJson {
  id: string
  type: string
  state: string
  attempts: number
}

/**
 * An initialized instance in a temp dir, with `config` (YAML lines) shared by every process, a
 * running `mediactl serve`, and the `mediactl worker` processes a test starts. The database is
 * a SQLite file the processes share (WAL, one machine), or a fresh PostgreSQL database when
 * MEDIACTL_TEST_DATABASE_URL is set.
 */
function instance(config: () => string[]) {
  const state = {
    dir: '',
    server: undefined as Server | undefined,
    client: undefined as unknown as DigestClient,
    workers: [] as Running[],
    drop: async (): Promise<void> => undefined,
  }
  const jobs = async (): Promise<JobJson[]> =>
    (await cliJson<{ jobs: JobJson[] }>(['jobs', 'list'], { cwd: state.dir })).jobs
  const api = {
    get server(): Server {
      return state.server!
    },
    get client(): DigestClient {
      return state.client
    },
    get dir(): string {
      return state.dir
    },
    jobById: async (id: string): Promise<JobJson | undefined> => (await jobs()).find((j) => j.id === id),
    /** Uploads a file; answers its slug and the id of the encoding job the upload queued. */
    async upload(data: Buffer, name: string): Promise<{ slug: string; job: string }> {
      const known = new Set((await jobs()).map((j) => j.id))
      const slug = await uploadMedia(state.client, data, name)
      let job: JobJson | undefined
      await waitFor(async () => (job = (await jobs()).find((j) => !known.has(j.id))) !== undefined, {
        interval: 100,
        message: `a job queued for ${slug}`,
      })
      return { slug, job: job!.id }
    },
    /** Starts `mediactl worker <args>` (with extra MEDIACTL_* variables) once it is ready. */
    async worker(args: string[] = [], env: Record<string, string> = {}): Promise<Running> {
      const worker = await start(['worker', ...args], { cwd: state.dir, env }, 'stop with Ctrl-C')
      state.workers.push(worker)
      return worker
    },
  }
  beforeAll(async () => {
    state.dir = tempDir()
    const database = await freshDatabase()
    state.drop = () => database.drop()
    // YAML reads the JSON of the encoder settings as a flow mapping.
    writeFileSync(
      join(state.dir, 'mediactl.yaml'),
      [
        'data_dir: ./data',
        `database: { url: '${database.url}' }`,
        'jobs: { concurrency: 1, backoff: 1, lease: 5 }',
        `encoder-ffmpeg: ${JSON.stringify(FAST_ENCODER)}`,
        ...config(),
        '',
      ].join('\n'),
    )
    const init = await cliJson<{ api_key: string }>(['init', '--admin-email', 'admin@example.org'], {
      cwd: state.dir,
    })
    state.server = await serve([], { cwd: state.dir })
    state.client = new DigestClient(state.server.url, 'admin', init.api_key)
  })
  // A test that failed midway leaves no worker behind to take the next test's jobs.
  afterEach(async () => {
    for (const worker of state.workers.splice(0)) await worker.stop('SIGTERM')
  })
  afterAll(async () => {
    await state.server?.stop('SIGKILL')
    await state.drop()
    if (state.dir) removeDir(state.dir)
  })
  return api
}

/** Serve queues, a worker encodes: the job waits until the worker starts, then the file ends finished. */
async function encodedByAWorker(app: ReturnType<typeof instance>): Promise<{ slug: string; worker: Running }> {
  const video = await makeMedia('video', { seconds: 2, size: '320x240' })
  const { slug, job } = await app.upload(video, 'clip.mp4')
  // Nothing runs it yet: serve does not consume (it never does: the worker's log and the
  // single attempt below show who ran it).
  expect(await app.jobById(job)).toMatchObject({ type: 'encoding.encode', state: 'waiting', attempts: 0 })
  expect(app.server.stdout()).not.toContain('running jobs')

  const worker = await app.worker(['--concurrency', '1'])
  expect(worker.stdout()).toMatch(/mediactl worker running jobs \(.*encoding\.encode.*\), 1 at a time/)
  const samples = await waitForStatus(app.client, slug, ['finished', 'failed'], 120_000)
  expect(samples.at(-1), JSON.stringify(samples.slice(-3))).toEqual({ status: 'finished', progress: 100 })
  expect(await app.jobById(job)).toMatchObject({ state: 'succeeded', attempts: 1 })
  // The worker ran it (its log), not the serving process.
  expect(worker.stdout()).toMatch(/"msg":"job succeeded"/)
  expect(app.server.stdout()).not.toMatch(/"msg":"job (started|succeeded)"/)
  return { slug, worker }
}

/**
 * Scale-out with real processes: `mediactl serve` with queue-bullmq (it does not run jobs) and
 * `mediactl worker` processes on the same database and Redis.
 */
describe.skipIf(!REDIS_URL)('scale-out: serve and workers with queue-bullmq (MEDIACTL_TEST_REDIS_URL)', () => {
  const prefix = `mediactl-e2e-${randomBytes(4).toString('hex')}`
  const app = instance(() => [
    `redis_url: ${REDIS_URL}`,
    plugins('queue-bullmq'),
    `queue-bullmq: { prefix: ${prefix}, stalled_interval: 5 }`,
  ])
  afterAll(async () => {
    const redis = new Redis(REDIS_URL!)
    const keys = await redis.keys(`${prefix}:*`)
    if (keys.length) await redis.del(...keys)
    await redis.quit()
  })

  it('serve queues the encoding; a worker runs it; the renditions are served', { timeout: 180_000 }, async () => {
    const { slug, worker } = await encodedByAWorker(app)
    const flavor = await digestBytes(app.client, `/file/${slug}/flavor/video/240p.mp4`)
    expect(flavor.status).toBe(200)
    expect(flavor.headers['content-type']).toBe('video/mp4')
    const probed = await ffprobe(flavor.body)
    expect(probed.streams.map((s) => s.codec_type)).toEqual(expect.arrayContaining(['video', 'audio']))

    const exit = await worker.stop('SIGTERM')
    expect(exit.code, exit.stderr).toBe(0)
    expect(exit.stdout).toContain('mediactl worker stopped.')
  })

  it(
    'a worker stopped mid-encoding puts the job back; another worker runs it, the cut run not counted',
    { timeout: 240_000 },
    async () => {
      const video = await makeMedia('video', { seconds: 20, size: '320x240' })
      const { slug, job } = await app.upload(video, 'long.mp4')
      // The first worker encodes slowly, so that it is caught running.
      const slow = await app.worker([], {
        MEDIACTL_ENCODER_FFMPEG__VIDEO__PRESET: 'veryslow',
        MEDIACTL_ENCODER_FFMPEG__THREADS: '1',
      })
      const before = await waitForStatus(app.client, slug, ['running', 'finished', 'failed'], 60_000)
      expect(before.at(-1)!.status).toBe('running')
      const exit = await slow.stop('SIGTERM')
      expect(exit.code, exit.stderr).toBe(0)
      expect(exit.stdout).toMatch(/"msg":"job put back"/)
      expect(await app.jobById(job)).toMatchObject({ state: 'waiting', attempts: 0 })

      const next = await app.worker()
      const samples = await waitForStatus(app.client, slug, ['finished', 'failed'], 180_000)
      expect(samples.at(-1), JSON.stringify(samples.slice(-3))).toEqual({ status: 'finished', progress: 100 })
      expect(await app.jobById(job)).toMatchObject({ state: 'succeeded', attempts: 1 })
      expect((await next.stop('SIGINT')).code).toBe(0)
    },
  )

  it('refuses to start while migrations are pending', { timeout: 60_000 }, async () => {
    const other = tempDir()
    try {
      writeFileSync(join(other, 'mediactl.yaml'), [`redis_url: ${REDIS_URL}`, plugins('queue-bullmq'), ''].join('\n'))
      const result = await cli(['worker'], { cwd: other })
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/migration\(s\) pending .*: run "mediactl migrate" first/)
    } finally {
      removeDir(other)
    }
  })
})

/** The worker with the database queue: serve leaves the jobs to it (`consume_in_serve: false`), on one machine. */
describe('a worker beside serve with queue-inline', () => {
  const app = instance(() => [plugins('queue-inline'), 'queue-inline: { poll_interval: 0.1, consume_in_serve: false }'])

  it('runs the encoding serve queued; stops gracefully', { timeout: 180_000 }, async () => {
    const { worker } = await encodedByAWorker(app)
    const exit = await worker.stop('SIGINT')
    expect(exit.code, exit.stderr).toBe(0)
    expect(exit.stdout).toContain('mediactl worker stopped.')
  })
})
