import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type Check, doctor } from '../../src/app/doctor.js'
import { baseUrlCheck, isOld } from '../../src/app/doctor-checks.js'
import { initInstance } from '../../src/app/init.js'
import { loadConfig } from '../../src/kernel/index.js'
import { TEST_PG_URL, freshDatabase } from '../helpers/database.js'
import { freePort } from '../helpers/redis-server.js'

/**
 * `mediactl doctor`, in process: each dependency fails on its own line with the hint that
 * fits, the others are still checked, and nothing waits past the time limit.
 */
let dir: string
const env = (extra: Record<string, string> = {}): Record<string, string> => ({ MEDIACTL_HTTP__PORT: '0', ...extra })

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-doctor-'))
  await initInstance({
    cwd: dir,
    env: env(),
    adminUsername: 'root',
    adminEmail: 'root@example.org',
    platformName: 'Default',
  })
}, 120_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function run(extra: Record<string, string> = {}, file?: string): Promise<Check[]> {
  return doctor({ cwd: dir, env: env(extra), file, timeoutMs: 4000 })
}

function named(checks: Check[], name: string): Check {
  const check = checks.find((c) => c.name === name)
  if (!check) throw new Error(`no check "${name}" in ${checks.map((c) => c.name).join(', ')}`)
  return check
}

const failures = (checks: Check[]): string[] => checks.filter((c) => c.status === 'fail').map((c) => c.name)

describe('a healthy instance', () => {
  it('passes every check; only the empty base_url is worth a look', async () => {
    const checks = await run()
    expect(failures(checks)).toEqual([])
    expect(checks.filter((c) => c.status === 'warn').map((c) => c.name)).toEqual(['base_url'])
    expect(checks.map((c) => c.name)).toEqual([
      'config',
      'node.js',
      'base_url',
      'http port',
      'data dir',
      'instance',
      'ffmpeg',
      'ffprobe',
      'flavors',
      'database',
      'migrations',
      'shared state',
      'storage',
    ])
    expect(named(checks, 'http port').detail).toBe('0: a free port is chosen at start')
    expect(named(checks, 'shared state').detail).toBe('database: seen by every process (1 HTTP process)')
  })
})

describe('the transcriber (automatic captions)', () => {
  it('names the engine and its languages, or fails with the reason and the package to install', async () => {
    const ready = await run({ MEDIACTL_PLUGINS__ENABLE: 'transcriber-pocketsphinx' })
    const line = named(ready, 'transcriber')
    if (existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')) {
      expect(line).toMatchObject({ status: 'ok', detail: 'pocketsphinx en (en)' })
    }
    const missing = await run({
      MEDIACTL_PLUGINS__ENABLE: 'transcriber-pocketsphinx',
      MEDIACTL_TRANSCRIBER_POCKETSPHINX__LM: '/nowhere/en-us.lm.bin',
    })
    expect(named(missing, 'transcriber')).toMatchObject({
      status: 'fail',
      detail:
        'pocketsphinx en: no model at /nowhere/en-us.lm.bin (transcriber-pocketsphinx.lm): apt-get install pocketsphinx-en-us',
    })
    const none = await run({ MEDIACTL_PLUGINS__ENABLE: 'transcriber-command' })
    expect(named(none, 'transcriber')).toMatchObject({
      status: 'fail',
      detail: 'command: no command: set transcriber-command.command (docs/configuration.md)',
    })
  })
})

describe('shared state (Digest nonce counts, upload locks)', () => {
  it('kept in memory with several HTTP processes: fails, saying what to change', async () => {
    const checks = await run({ MEDIACTL_STATE: 'memory', MEDIACTL_HTTP__PROCESSES: '2' })
    expect(named(checks, 'shared state')).toMatchObject({
      status: 'fail',
      detail: 'memory: kept in each process, and serve would start 2 HTTP processes: it refuses to',
    })
    expect(named(checks, 'shared state').fix).toContain('http.processes: 1')
  })

  it('kept in memory with one HTTP process, or in the database with several: passes', async () => {
    expect(named(await run({ MEDIACTL_STATE: 'memory' }), 'shared state')).toMatchObject({
      status: 'ok',
      detail: 'memory: kept in this one process (1 HTTP process)',
    })
    expect(named(await run({ MEDIACTL_HTTP__PROCESSES: '2' }), 'shared state')).toMatchObject({
      status: 'ok',
      detail: 'database: seen by every process (2 HTTP processes)',
    })
  })
})

describe('configuration mistakes stop at the config line, naming the closest valid name', () => {
  it('an unknown key in a plugin section', async () => {
    const file = join(dir, 'typo.yaml')
    writeFileSync(file, 'files:\n  max_file_sise: 10\n')
    const checks = await run({}, file)
    expect(checks).toHaveLength(1)
    expect(checks[0]).toMatchObject({ name: 'config', status: 'fail', ok: false })
    expect(checks[0]!.detail).toContain('files: unknown key "max_file_sise" (did you mean "max_file_size"?)')
    expect(checks[0]!.fix).toContain('docs/configuration.md')
  })

  it('an unknown plugin, a wrong backend, an unknown top-level key', async () => {
    expect((await run({ MEDIACTL_PLUGINS__ENABLE: 'state-rdis' }))[0]!.detail).toContain(
      '(did you mean "state-redis"?)',
    )
    expect((await run({ MEDIACTL_QUEUE: 'bulmq' }))[0]!.detail).toContain('(did you mean "bullmq"?)')
    const file = join(dir, 'top.yaml')
    writeFileSync(file, 'encodng:\n  token_ttl: 60\n')
    expect((await run({}, file))[0]!.detail).toContain('"encodng" (did you mean "encoding"?)')
  })
})

describe('each dependency fails on its own line, with its hint', () => {
  let listener: Server | undefined
  afterEach(async () => {
    await new Promise((resolve) => (listener ? listener.close(resolve) : resolve(undefined)))
    listener = undefined
  })

  it('Redis unreachable: its line fails naming redis_url; the database and storage are still checked', async () => {
    const port = await freePort()
    const checks = await run({ MEDIACTL_STATE: 'redis', MEDIACTL_REDIS_URL: `redis://127.0.0.1:${port}` })
    const redis = named(checks, 'redis (state-redis)')
    expect(redis.status).toBe('fail')
    expect(redis.detail).toContain(`no answer at redis://127.0.0.1:${port}`)
    expect(redis.fix).toContain('redis_url (MEDIACTL_REDIS_URL)')
    expect(named(checks, 'database').status).toBe('ok')
    expect(named(checks, 'storage').status).toBe('ok')
    expect(failures(checks)).toEqual(['redis (state-redis)'])
  })

  it.runIf(process.env.MEDIACTL_TEST_REDIS_URL)('Redis reachable: both Redis lines pass', async () => {
    const checks = await run({
      MEDIACTL_STATE: 'redis',
      MEDIACTL_QUEUE: 'bullmq',
      MEDIACTL_REDIS_URL: process.env.MEDIACTL_TEST_REDIS_URL!,
    })
    expect(named(checks, 'redis (state-redis)').status).toBe('ok')
    expect(named(checks, 'redis (queue-bullmq)').status).toBe('ok')
    expect(failures(checks)).toEqual([])
  })

  it('a storage root that cannot be made: storage-fs fails to start, and its own line says so', async () => {
    const file = join(dir, 'not-a-dir')
    writeFileSync(file, 'x')
    const checks = await run({ MEDIACTL_STORAGE_FS__ROOT: join(file, 'storage') })
    // storage-fs cannot even start: the blame is on it, not on the database.
    expect(failures(checks)).toEqual(['storage-fs'])
    expect(named(checks, 'storage-fs').detail).toContain('ENOTDIR')
    expect(named(checks, 'storage-fs').fix).toContain('"storage-fs" section')
  })

  it('an S3 endpoint that does not answer: the S3 hint', async () => {
    const port = await freePort()
    const checks = await run({
      MEDIACTL_STORAGE: 's3',
      MEDIACTL_STORAGE_S3__ENDPOINT: `http://127.0.0.1:${port}`,
      MEDIACTL_STORAGE_S3__BUCKET: 'media',
      MEDIACTL_STORAGE_S3__ACCESS_KEY_ID: 'key',
      MEDIACTL_STORAGE_S3__SECRET_ACCESS_KEY: 'secret',
      MEDIACTL_STORAGE_S3__FORCE_PATH_STYLE: 'true',
    })
    expect(named(checks, 'storage').status).toBe('fail')
    expect(named(checks, 'storage').fix).toContain('storage-s3.endpoint, bucket (it must exist)')
  })

  it('a taken port is worth a look (this installation may be serving), a foreign address fails', async () => {
    listener = createServer()
    const port = await new Promise<number>((resolve) =>
      listener!.listen(0, '127.0.0.1', () => resolve((listener!.address() as { port: number }).port)),
    )
    const taken = named(await run({ MEDIACTL_HOST: '127.0.0.1', MEDIACTL_PORT: String(port) }), 'http port')
    expect(taken).toMatchObject({ status: 'warn', ok: true, detail: `127.0.0.1:${port} is in use` })
    expect(taken.fix).toContain('http.port (MEDIACTL_PORT)')
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: binding fails locally, no packet is sent.
    const foreign = named(await run({ MEDIACTL_HOST: '192.0.2.1', MEDIACTL_PORT: '8080' }), 'http port')
    expect(foreign).toMatchObject({ status: 'fail', detail: '192.0.2.1 is no address of this machine' })
    const metrics = await run({ MEDIACTL_METRICS__PORT: String(port), MEDIACTL_METRICS__HOST: '127.0.0.1' })
    expect(named(metrics, 'metrics port')).toMatchObject({ status: 'warn' })
    expect(named(metrics, 'metrics port').fix).toContain('metrics.port (MEDIACTL_METRICS__PORT)')
  })

  it('no secret: the instance line fails and says to run init', async () => {
    const other = mkdtempSync(join(tmpdir(), 'mediactl-doctor-bare-'))
    try {
      const checks = await doctor({ cwd: other, env: env(), timeoutMs: 4000 })
      expect(named(checks, 'instance')).toMatchObject({ status: 'fail' })
      expect(named(checks, 'instance').fix).toMatch(/^run "mediactl init"/)
      // Nothing migrated in a bare directory: the schema line says so.
      expect(named(checks, 'migrations')).toMatchObject({ status: 'fail', fix: 'run "mediactl migrate"' })
      expect(named(checks, 'migrations').detail).toMatch(/^\d+ pending: .* and \d+ more$/)
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})

describe('ffmpeg', () => {
  const saved = { ffmpeg: process.env.FFMPEG_PATH, ffprobe: process.env.FFPROBE_PATH }
  afterEach(() => {
    for (const [key, value] of [
      ['FFMPEG_PATH', saved.ffmpeg],
      ['FFPROBE_PATH', saved.ffprobe],
    ] as const) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  })

  it('names the version and where it came from; the bundled 2018 build is worth a look', async () => {
    process.env.FFMPEG_PATH = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path
    const ffmpeg = named(await run(), 'ffmpeg')
    expect(ffmpeg).toMatchObject({ status: 'warn', ok: true })
    expect(ffmpeg.detail).toMatch(/^ffmpeg version N-\S+ \(FFMPEG_PATH: .*ffmpeg\)$/)
    expect(ffmpeg.fix).toContain('apt-get install ffmpeg')
  })

  it('fails when the configured one does not run', async () => {
    process.env.FFPROBE_PATH = join(dir, 'no-such-ffprobe')
    const ffprobe = named(await run(), 'ffprobe')
    expect(ffprobe).toMatchObject({ status: 'fail', detail: 'not found or not runnable' })
    expect(ffprobe.fix).toContain('FFPROBE_PATH')
  })

  it('isOld reads numbered and git builds', () => {
    expect(isOld('ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2025 the FFmpeg developers')).toBe(false)
    expect(isOld('ffmpeg version 4.4.2-0ubuntu0.22.04.1 Copyright (c) 2000-2021')).toBe(true)
    expect(isOld('ffmpeg version n7.1 Copyright (c) 2000-2024')).toBe(false)
    expect(
      isOld('ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/  Copyright (c) 2000-2018'),
    ).toBe(true)
  })
})

describe('base_url', () => {
  const config = (base_url: string) => ({ ...loadConfig({ env: {}, cwd: '/' }).config, base_url })
  it('passes https, warns for empty or plain http on a public name, fails other schemes and extras', () => {
    expect(baseUrlCheck(config('https://media.example.org')).status).toBe('ok')
    expect(baseUrlCheck(config('http://localhost:8080')).status).toBe('ok')
    expect(baseUrlCheck(config('')).status).toBe('warn')
    expect(baseUrlCheck(config('http://media.example.org')).status).toBe('warn')
    expect(baseUrlCheck(config('ftp://media.example.org'))).toMatchObject({ status: 'fail' })
    expect(baseUrlCheck(config('https://media.example.org/?x=1'))).toMatchObject({ status: 'fail' })
  })
})

describe.runIf(TEST_PG_URL)('PostgreSQL', () => {
  it('a database that does not exist: the line says how to create it; what needs it is skipped', async () => {
    const url = new URL(TEST_PG_URL!)
    url.pathname = '/mediactl_no_such_database'
    const checks = await run({ MEDIACTL_DATABASE_URL: url.toString() })
    expect(named(checks, 'database').status).toBe('fail')
    expect(named(checks, 'database').detail).toContain('"mediactl_no_such_database" does not exist')
    expect(named(checks, 'database').fix).toContain('mediactl init --create-database')
    expect(named(checks, 'dependencies').status).toBe('skip')
  })

  it('a server that does not answer: the database line fails within the time limit', async () => {
    const port = await freePort()
    const checks = await run({ MEDIACTL_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test` })
    expect(named(checks, 'database').status).toBe('fail')
    expect(named(checks, 'database').fix).toContain('check that PostgreSQL runs')
  })

  it('a migrated database passes', async () => {
    const database = await freshDatabase()
    try {
      const checks = await run({ MEDIACTL_DATABASE_URL: database.url })
      expect(named(checks, 'migrations').status).toBe('fail')
      await initInstance({
        cwd: dir,
        env: env({ MEDIACTL_DATABASE_URL: database.url }),
        adminUsername: 'root',
        adminEmail: 'root@example.org',
        platformName: 'Default',
      })
      expect(failures(await run({ MEDIACTL_DATABASE_URL: database.url }))).toEqual([])
    } finally {
      await database.drop()
    }
  }, 120_000)
})
