import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join, relative, sep } from 'node:path'
import Database from 'better-sqlite3'
import { Redis } from 'ioredis'
import pg from 'pg'
import { expect } from 'vitest'
import { TEST_PG_URL, freshDatabase } from '../helpers/database.js'
import { DigestClient } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import { parseXml, text } from '../helpers/xml.js'
import { fileRequest } from '../plugins/files/files.helpers.js'
import { type Running, type Server, cli, cliJson, removeDir, serve, start, tempDir } from './harness.js'
import type { JobView } from '../../src/app/jobs.js'

export const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL

/** Where jobs live (the database) and how consumers hear of them (the transport). */
export interface Backend {
  name: string
  queue: 'inline' | 'bullmq'
  postgres: boolean
}

/** The backends of this run: inline on SQLite always; PostgreSQL and Redis when the environment names them. */
export function backends(): Backend[] {
  const list: Backend[] = [{ name: 'queue-inline on SQLite', queue: 'inline', postgres: false }]
  if (TEST_PG_URL) list.push({ name: 'queue-inline on PostgreSQL', queue: 'inline', postgres: true })
  if (TEST_PG_URL && REDIS_URL)
    list.push({ name: 'queue-bullmq on Redis and PostgreSQL', queue: 'bullmq', postgres: true })
  return list
}

/** One small rung, short HLS segments, one thread: a few seconds of 320x180 encode in about a second. */
export const SMALL_ENCODER = {
  threads: 1,
  video: { preset: 'ultrafast', ladder: [{ name: '180p', width: 320, height: 180, crf: 32, audio_bitrate: 64 }] },
  hls: { segment_duration: 2 },
  thumbnail: { width: 160 },
  snapshots: { width: 160 },
}

/** The renditions one encoding of a video records with SMALL_ENCODER, `kind:name`, sorted. */
export const VIDEO_RENDITIONS = [
  'flavor:180p',
  'hls:hls',
  ...Array.from({ length: 10 }, (_, i) => `snapshot:${i}`),
  'thumbnail:thumbnail',
]

/** The encoding status codes of `files.encoding_status`. */
export const STATUS_CODES = ['pending', 'waiting', 'running', 'success', 'failed', 'finished']

/** A job as `mediactl jobs ... --json` prints it. */
export type JobJson = JobView

export interface FileRow {
  id: number
  slug: string
  name: string
  size: number
  stored_bytes: number
  storage_prefix: string
  status: string
}

export interface JobRow {
  id: string
  state: string
  attempts: number
  key: string | null
  subject: string | null
  lease_owner: string | null
}

export interface InstanceOptions {
  /** `jobs.lease`, seconds. */
  lease?: number
  /** Whether `serve` runs jobs (queue-inline); serve never does with queue-bullmq here. */
  consumeInServe?: boolean
}

/** Every file below a folder, relative, with `/` separators. */
export function filesBelow(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()
}

/**
 * An initialized instance in a temp dir: its own database (a SQLite file, or a fresh
 * PostgreSQL database), its own Redis prefix (queue-bullmq), the `serve` and `worker`
 * processes a test starts, and direct reads of its database, storage and Redis keys.
 */
export class Instance {
  readonly prefix = `mediactl-jc-${randomBytes(4).toString('hex')}`
  server: Server | undefined
  readonly workers: Running[] = []
  apiKey = ''
  private drop: () => Promise<void> = async () => undefined

  private constructor(
    readonly backend: Backend,
    readonly dir: string,
    private readonly dbUrl: string,
  ) {}

  static async create(backend: Backend, options: InstanceOptions = {}): Promise<Instance> {
    const dir = tempDir('mediactl-jobs-crash-')
    const database = backend.postgres ? await freshDatabase() : { url: '', drop: async () => undefined }
    const app = new Instance(backend, dir, database.url)
    app.drop = () => database.drop()
    const queue =
      backend.queue === 'bullmq'
        ? [`redis_url: ${REDIS_URL}`, `queue-bullmq: { prefix: ${app.prefix}, stalled_interval: 2 }`]
        : [`queue-inline: { poll_interval: 0.2, consume_in_serve: ${options.consumeInServe ?? true} }`]
    writeFileSync(
      join(dir, 'mediactl.yaml'),
      [
        'data_dir: ./data',
        ...(database.url ? [`database: { url: '${database.url}' }`] : []),
        `jobs: { concurrency: 2, backoff: 1, lease: ${options.lease ?? 5}, reconcile_interval: 2 }`,
        // One serving process, also on PostgreSQL: a fault kills it and the test restarts it (under
        // serve --processes N the primary would; test/e2e/serve-processes.test.ts).
        'http: { processes: 1 }',
        `encoder-ffmpeg: ${JSON.stringify(SMALL_ENCODER)}`,
        `plugins: [root, platforms, identity, storage-fs, metadata, files, encoder-ffmpeg, queue-${backend.queue}, encoding]`,
        ...queue,
        '',
      ].join('\n'),
    )
    try {
      const init = await cliJson<{ api_key: string }>(['init', '--admin-email', 'admin@example.org'], { cwd: dir })
      app.apiKey = init.api_key
    } catch (error) {
      await app.close()
      throw error
    }
    return app
  }

  get dataDir(): string {
    return join(this.dir, 'data')
  }

  get storageDir(): string {
    return join(this.dataDir, 'storage')
  }

  /** Starts `mediactl serve` (with extra MEDIACTL_* variables). */
  async serve(env: Record<string, string> = {}): Promise<Server> {
    this.server = await serve([], { cwd: this.dir, env })
    return this.server
  }

  /** Starts `mediactl worker` (with extra MEDIACTL_* variables) once it is ready. */
  async worker(env: Record<string, string> = {}, args: string[] = []): Promise<Running> {
    const worker = await start(['worker', ...args], { cwd: this.dir, env }, 'stop with Ctrl-C')
    this.workers.push(worker)
    return worker
  }

  /** A Digest client of the admin on the running `serve`. */
  client(): DigestClient {
    return new DigestClient(this.server!.url, 'admin', this.apiKey)
  }

  /** SIGKILLs every process of the instance (serve and workers) and waits for them to end. */
  async killAll(): Promise<void> {
    const all = [...(this.server ? [this.server] : []), ...this.workers.splice(0)]
    this.server = undefined
    await Promise.all(all.map((p) => p.stop('SIGKILL')))
  }

  /** Stops every process gracefully (SIGTERM), asserting each exits 0. */
  async stopAll(): Promise<void> {
    const all = [...(this.server ? [this.server] : []), ...this.workers.splice(0)]
    this.server = undefined
    for (const exit of await Promise.all(all.map((p) => p.stop('SIGTERM')))) {
      expect(exit.code, `${exit.stdout}\n${exit.stderr}`).toBe(0)
    }
  }

  /** Reads the database (`?` placeholders), whichever it is. */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (this.dbUrl) {
      const client = new pg.Client({ connectionString: this.dbUrl })
      await client.connect()
      try {
        let n = 0
        return (
          await client.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as T[]
      } finally {
        await client.end()
      }
    }
    const db = new Database(join(this.dataDir, 'mediactl.sqlite'), { readonly: true, fileMustExist: true })
    try {
      db.pragma('busy_timeout = 5000')
      return db.prepare(sql).all(...params) as T[]
    } finally {
      db.close()
    }
  }

  /** Makes every storage guard and trash entry due now (as if `files.pending_ttl` had passed); no process may run. */
  async makeTrashDue(): Promise<void> {
    if (this.dbUrl) {
      const client = new pg.Client({ connectionString: this.dbUrl })
      await client.connect()
      try {
        await client.query(`update storage_trash set not_before = '1970-01-01T00:00:00Z'`)
      } finally {
        await client.end()
      }
      return
    }
    const db = new Database(join(this.dataDir, 'mediactl.sqlite'), { fileMustExist: true })
    try {
      db.pragma('busy_timeout = 5000')
      db.prepare('update storage_trash set not_before = 0').run()
    } finally {
      db.close()
    }
  }

  async files(): Promise<FileRow[]> {
    const rows = await this.query<Record<string, unknown>>(
      'select id, slug, name, size, stored_bytes, storage_prefix, encoding_status from files order by id',
    )
    return rows.map((r) => ({
      id: Number(r.id),
      slug: String(r.slug),
      name: String(r.name),
      size: Number(r.size),
      stored_bytes: Number(r.stored_bytes),
      storage_prefix: String(r.storage_prefix),
      status: STATUS_CODES[Number(r.encoding_status)] ?? String(r.encoding_status),
    }))
  }

  async jobRows(): Promise<JobRow[]> {
    const rows = await this.query<Record<string, unknown>>(
      'select id, state, attempts, key, subject, lease_owner from jobs order by id',
    )
    return rows.map((r) => ({
      id: String(r.id),
      state: String(r.state),
      attempts: Number(r.attempts),
      key: (r.key as string | null) ?? null,
      subject: (r.subject as string | null) ?? null,
      lease_owner: (r.lease_owner as string | null) ?? null,
    }))
  }

  /** `mediactl jobs list --json`. */
  async jobs(): Promise<JobJson[]> {
    return (await cliJson<{ jobs: JobJson[] }>(['jobs', 'list', '--limit', '1000'], { cwd: this.dir })).jobs
  }

  /**
   * Waits until every file row is finished or failed and every job has ended (reading the
   * database). Both: a handler shows `finished` once the renditions are recorded, a moment
   * before the runner records the job's success.
   */
  async waitSettled(timeoutMs = 180_000): Promise<FileRow[]> {
    let rows: FileRow[] = []
    let jobs: JobRow[] = []
    await waitFor(
      async () => {
        rows = await this.files()
        jobs = await this.jobRows()
        return (
          rows.every((f) => f.status === 'finished' || f.status === 'failed') &&
          jobs.every((j) => j.state !== 'waiting' && j.state !== 'running')
        )
      },
      { timeout: timeoutMs, interval: 200, message: 'every file and job settled' },
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify({ rows, jobs })}\n${this.logs()}`)
    })
    return rows
  }

  /** Waits until job `id` has ended; answers it. */
  async jobEnded(id: string, timeoutMs = 60_000): Promise<JobRow> {
    let job: JobRow | undefined
    await waitFor(
      async () => {
        job = (await this.jobRows()).find((j) => j.id === id)
        return job !== undefined && job.state !== 'waiting' && job.state !== 'running'
      },
      { timeout: timeoutMs, interval: 100, message: `job ${id} ended` },
    )
    return job!
  }

  /** The keys of this instance's Redis prefix. */
  async redisKeys(): Promise<string[]> {
    const redis = new Redis(REDIS_URL!)
    try {
      const keys: string[] = []
      let cursor = '0'
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000)
        keys.push(...batch)
        cursor = next
      } while (cursor !== '0')
      return keys
    } finally {
      redis.disconnect()
    }
  }

  /** The jobs (database ids) that have a signal in Redis: BullMQ jobs `<prefix>:<queue>:<id>-<due ms>`. */
  async signalled(): Promise<string[]> {
    const pattern = new RegExp(`^${this.prefix}:jobs:(\\d+)-\\d+$`)
    const ids = (await this.redisKeys()).map((key) => pattern.exec(key)?.[1]).filter((id) => id !== undefined)
    return [...new Set(ids)].sort((a, b) => Number(a) - Number(b))
  }

  /** "Flushes" Redis for this instance: deletes every key of its prefix (never FLUSHALL: the server is shared). */
  async flushRedis(): Promise<number> {
    const keys = await this.redisKeys()
    if (!keys.length) return 0
    const redis = new Redis(REDIS_URL!)
    try {
      for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500))
    } finally {
      redis.disconnect()
    }
    return keys.length
  }

  /** What the processes printed, for failure messages. */
  logs(): string {
    const parts = [
      ...(this.server ? [['serve', this.server] as const] : []),
      ...this.workers.map((w) => ['worker', w] as const),
    ]
    return parts.map(([name, p]) => `--- ${name}\n${p.stdout().slice(-4000)}\n${p.stderr().slice(-2000)}`).join('\n')
  }

  /** Kills what still runs, drops the database, deletes the Redis keys, removes the folder. */
  async close(): Promise<void> {
    await this.killAll().catch(() => undefined)
    await this.drop().catch(() => undefined)
    if (this.backend.queue === 'bullmq') await this.flushRedis().catch(() => undefined)
    removeDir(this.dir)
  }
}

/** How one upload of `slowUpload` ended. */
export interface UploadOutcome {
  name: string
  /** The HTTP status, when an answer came. */
  status?: number
  slug?: string
  /** Whether the whole body was handed to the socket before it broke. */
  sentAll: boolean
  error?: string
}

/**
 * `POST /files` of `data` as `name`, the body written in `chunk`-byte pieces `pauseMs()` apart,
 * so that it stays in flight for a while; with `stallAfter`, it stops writing after that many
 * bytes and waits for the connection to break. Never rejects (a cut connection is an outcome).
 */
export async function slowUpload(
  app: Instance,
  data: Buffer,
  name: string,
  {
    chunk = 8192,
    pauseMs = () => 10,
    stallAfter = Infinity,
  }: { chunk?: number; pauseMs?: () => number; stallAfter?: number } = {},
): Promise<UploadOutcome> {
  const client = app.client()
  const base = client.baseUrl
  const outcome: UploadOutcome = { name, sentAll: false }
  try {
    await client.handshake()
  } catch (error) {
    // The process died before this upload began.
    return { ...outcome, error: (error as Error).message }
  }
  const { body, headers } = fileRequest(data, { filename: name })
  const authorization = client.authorization('POST', '/files')
  return new Promise((resolve) => {
    const target = new URL(base)
    let done = false
    const finish = (): void => {
      if (done) return
      done = true
      resolve(outcome)
    }
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: '/files',
        headers: { ...headers, 'content-length': String(body.length), authorization },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          outcome.status = res.statusCode
          const answer = Buffer.concat(chunks).toString('utf8')
          if (res.statusCode === 200) outcome.slug = text(parseXml(answer).file.slug)
          else outcome.error = answer
          finish()
        })
        res.on('error', (error) => {
          outcome.error = error.message
          finish()
        })
      },
    )
    req.on('error', (error) => {
      outcome.error = error.message
      finish()
    })
    let offset = 0
    const next = (): void => {
      if (done || req.destroyed || offset >= stallAfter) return
      const piece = body.subarray(offset, offset + chunk)
      offset += piece.length
      if (offset >= body.length) {
        req.end(piece, () => (outcome.sentAll = true))
        return
      }
      req.write(piece, (error) => {
        if (!error) setTimeout(next, pauseMs())
      })
    }
    next()
  })
}

/** GET /file/<slug>/status: the status word and progress. */
export async function fileStatus(client: DigestClient, slug: string): Promise<{ status: string; progress: number }> {
  const res = await client.get(`/file/${slug}/status`)
  expect(res.status, res.body).toBe(200)
  const file = parseXml(res.body).file as Record<string, unknown>
  return { status: text(file.encoding_status), progress: Number(text(file.encoding_progress)) }
}

/** The file status a job's state shows (encoding-state.hook.ts; success is the handler's `finished`). */
const STATUS_OF_JOB: Record<string, string[]> = {
  waiting: ['pending', 'waiting'],
  running: ['running'],
  succeeded: ['finished'],
  failed: ['failed'],
  cancelled: ['failed'],
}

/**
 * With `serve` running and nothing moving: `jobs list` shows every job succeeded (none
 * running), one encoding job per file, and each file's status agrees with its job.
 * Answers the jobs.
 */
export async function expectJobsAgree(app: Instance, files: FileRow[]): Promise<JobJson[]> {
  const jobs = await app.jobs()
  expect(
    jobs.filter((j) => j.state === 'running'),
    'no job left running',
  ).toEqual([])
  expect(
    jobs.filter((j) => j.state !== 'succeeded').map((j) => `${j.id} ${j.state} ${j.last_error}`),
    'every job succeeded',
  ).toEqual([])
  const client = app.client()
  for (const file of files) {
    const mine = jobs.filter((j) => j.type === 'encoding.encode' && j.file === file.slug)
    expect(
      mine.map((j) => j.key),
      `one encoding job for ${file.slug}`,
    ).toEqual([`encode:${file.id}`])
    expect(mine[0]).toMatchObject({ progress: 100, last_error: null, next_try: null, payload: { fileId: file.id } })
    const status = await fileStatus(client, file.slug)
    expect(STATUS_OF_JOB[mine[0]!.state], `${file.slug}: status ${status.status}, job ${mine[0]!.state}`).toContain(
      status.status,
    )
    expect(status).toEqual({ status: 'finished', progress: 100 })
  }
  expect(
    jobs.filter((j) => !files.some((f) => f.slug === j.file)).map((j) => j.id),
    'no job of another file',
  ).toEqual([])
  return jobs
}

/**
 * With no process running: each file has exactly one set of renditions, recorded and
 * stored; stored_bytes = size + its renditions (the quota counts exactly); no guard holds a
 * live file's prefix; every stored object belongs to a file or to a storage guard, and once
 * the guards are due, `mediactl purge` leaves only the files' objects. Work folders are gone.
 */
export async function expectStorageExact(app: Instance): Promise<void> {
  const files = await app.files()
  const trash = (await app.query<{ target: string }>('select target from storage_trash')).map((r) => r.target)
  for (const file of files) {
    const rows = (
      await app.query<{ kind: string; name: string; storage_key: string; size: number | string }>(
        'select kind, name, storage_key, size from renditions where file_id = ? order by kind, name',
        [file.id],
      )
    ).map((r) => ({ ...r, size: Number(r.size) }))
    expect(rows.map((r) => `${r.kind}:${r.name}`).sort(), file.slug).toEqual(VIDEO_RENDITIONS)
    expect(file.stored_bytes, `${file.slug}: stored_bytes = size + renditions`).toBe(
      file.size + rows.reduce((sum, r) => sum + r.size, 0),
    )
    const prefix = file.storage_prefix
    const objects = filesBelow(join(app.storageDir, ...prefix.split('/').filter(Boolean)))
    const renditions = objects.filter((name) => name.startsWith('renditions/')).map((name) => `${prefix}${name}`)
    expect(
      objects.filter((name) => !name.startsWith('renditions/')),
      file.slug,
    ).toEqual(['source'])
    expect(statSync(join(app.storageDir, ...`${prefix}source`.split('/'))).size, `${file.slug}: source size`).toBe(
      file.size,
    )
    // One run's renditions: `files/<id>/renditions/<run>/...`.
    expect(new Set(renditions.map((key) => key.split('/')[3])).size, `${file.slug}: one set of renditions`).toBe(1)
    for (const key of renditions) {
      expect(
        rows.some((r) => (r.storage_key.endsWith('/') ? key.startsWith(r.storage_key) : key === r.storage_key)),
        `${key} is recorded`,
      ).toBe(true)
    }
    for (const row of rows.filter((r) => !r.storage_key.endsWith('/'))) expect(renditions).toContain(row.storage_key)
    expect(
      trash.filter((target) => target.startsWith(prefix) || prefix.startsWith(target)),
      `no guard or trash entry holds ${file.slug}'s objects`,
    ).toEqual([])
  }

  const keys = () => filesBelow(app.storageDir).filter((key) => !key.startsWith('~'))
  const ofFile = (key: string): boolean => files.some((f) => key.startsWith(f.storage_prefix))
  const strays = keys().filter((key) => !ofFile(key))
  for (const key of strays) {
    expect(
      trash.some((target) => (target.endsWith('/') ? key.startsWith(target) : key === target)),
      `${key}: no file, and no guard to remove it`,
    ).toBe(true)
  }
  // Partial writes of cut uploads wait in ~tmp for the sweep (a day); nothing else is there.
  expect(filesBelow(join(app.storageDir, '~tmp')).filter((name) => !/^[0-9a-f]{24}\.part$/.test(name))).toEqual([])
  expect(filesBelow(join(app.storageDir, '~tus'))).toEqual([])

  // Time passes (files.pending_ttl): the purge removes the cut uploads' bytes, and nothing of a file.
  await app.makeTrashDue()
  const purged = await cli(['purge', '--json'], { cwd: app.dir })
  expect(purged.code, purged.stderr).toBe(0)
  expect(
    keys().filter((key) => !ofFile(key)),
    'no orphan objects after the purge',
  ).toEqual([])
  expect((await app.query('select target from storage_trash')).length).toBe(0)
  expect(await app.files()).toEqual(files)
  expect(filesBelow(join(app.dataDir, 'work')), 'no work folder left').toEqual([])
}

/** Waits until no process (ffmpeg included) runs with the instance's folder in its command line or working directory. */
export async function expectNoProcessLeft(app: Instance): Promise<void> {
  const mine = (): string[] => {
    const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    const lines = out.split('\n').filter((line) => line.includes(app.dir))
    // Working directories: the CLI runs in the instance folder, ffmpeg in a work folder.
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        const cwd = readlinkSync(`/proc/${pid}/cwd`)
        if (cwd.startsWith(app.dir) && !lines.some((line) => line.trim().startsWith(`${pid} `)))
          lines.push(`${pid} (cwd ${cwd})`)
      } catch {
        // gone, or not ours to read
      }
    }
    return lines
  }
  let left: string[] = []
  await waitFor(() => (left = mine()).length === 0, {
    timeout: 10_000,
    interval: 100,
    message: 'no process left',
  }).catch(() => {
    throw new Error(`processes of the instance still run:\n${left.join('\n')}`)
  })
}
