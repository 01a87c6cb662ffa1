import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootKernel } from '../../src/app/boot.js'
import { createLogger } from '../../src/kernel/index.js'
import { ProfileEntity, RoleEntity } from '../../plugins/identity/index.js'
import { DigestClient, rawRequest } from '../helpers/digest-client.js'
import { list, parseXml, text } from '../helpers/xml.js'
import { cli, cliJson, rawExchange, removeDir, serve, tempDir } from './harness.js'

/**
 * Graceful shutdown of a real `mediactl serve`, then the migration commands on the same
 * instance: status, down, the refusals while migrations are pending, up, seed, serve --migrate.
 */

interface MigrateJson {
  action: string
  changed: string[]
  migrations: { name: string; plugin: string; executed_at: string | null }[]
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let dir: string
let adminKey: string
const opts = (): { cwd: string } => ({ cwd: dir })

beforeAll(async () => {
  dir = tempDir()
  const init = await cliJson(['init', '--admin-email', 'admin@example.org'], opts())
  expect(init.username).toBe('admin')
  adminKey = init.api_key as string
})

afterAll(() => removeDir(dir))

/**
 * Whether the client asked for keep-alive (the HTTP/1.1 default) or not, an answer sent once
 * shutdown has begun closes its connection, so the process exits as soon as it is sent.
 */
describe.each([
  // Well before http.shutdown_timeout (10 s), which a connection left open would make it wait
  // out; the margin is for a loaded machine (3.8 s seen on 2 busy cores).
  { signal: 'SIGTERM', connection: 'keep-alive', exitWithinMs: 8_000 },
  { signal: 'SIGINT', connection: 'close', exitWithinMs: 8_000 },
] as const)('mediactl serve stopped by $signal', ({ signal, connection, exitWithinMs }) => {
  it(`stops accepting, finishes the request in flight (Connection: ${connection}), closes the database, exits 0`, async () => {
    const server = await serve([], opts())
    const client = new DigestClient(server.url, 'admin', adminKey)
    expect((await client.get('/')).status).toBe(200)

    // A POST whose body arrives in two parts, the signal in between.
    const body = `name=In+flight+${signal}&max_users=3&max_space=0`
    const half = Math.floor(body.length / 2)
    const exchange = await rawExchange(
      server.url,
      [
        'POST /platforms HTTP/1.1',
        `Host: ${new URL(server.url).host}`,
        `Connection: ${connection}`,
        `Authorization: ${client.authorization('POST', '/platforms')}`,
        'Content-Type: application/x-www-form-urlencoded',
        `Content-Length: ${body.length}`,
        // The server's 100 Continue tells when it has read the headers and waits for the body.
        'Expect: 100-continue',
        '',
        body.slice(0, half),
      ].join('\r\n'),
    )
    await exchange.continued
    server.child.kill(signal)
    await server.waitFor(`"signal":"${signal}","msg":"stopping"`)

    // No new connections once stopping (refused, or reset if it raced the listener's close)...
    const refused = await rawRequest(`${server.url}/`, 'GET').then(
      (res) => `answered ${res.status}`,
      (error: NodeJS.ErrnoException) => error.code,
    )
    expect(['ECONNREFUSED', 'ECONNRESET']).toContain(refused)
    expect(server.child.exitCode).toBeNull()

    // ...but the request in flight gets its full answer.
    exchange.write(body.slice(half))
    const res = await exchange.response
    expect(res.status).toBe(201)
    expect(res.headers).toMatch(/\r\nConnection: close(\r\n|$)/i)
    const platform = parseXml(res.body).platform
    expect(text(platform.slug)).toBe(`in-flight-${signal.toLowerCase()}`)
    expect(text(platform.max_users)).toBe('3')

    const answeredAt = Date.now()
    const exit = await server.exited
    expect(Date.now() - answeredAt).toBeLessThan(exitWithinMs)
    expect(exit.code).toBe(0)
    expect(exit.signal).toBeNull()
    expect(exit.stdout.trimEnd().split('\n').at(-1)).toBe('mediactl stopped.')
    expect(exit.stderr).toBe('')
    // SQLite removes its write-ahead log when the last connection closes cleanly.
    expect(existsSync(join(dir, 'data', 'mediactl.sqlite'))).toBe(true)
    expect(existsSync(join(dir, 'data', 'mediactl.sqlite-wal'))).toBe(false)
  })
})

describe('mediactl serve stopped as soon as it is ready', () => {
  it('has its signal handlers in place when it prints that it is serving', async () => {
    const server = await serve([], opts())
    const exit = await server.stop()
    expect(exit).toMatchObject({ code: 0, signal: null, stderr: '' })
    expect(exit.stdout).toMatch(/\nmediactl stopped\.\n$/)
  })
})

describe('after a graceful shutdown', () => {
  it('the platforms created by the requests in flight were committed', async () => {
    const server = await serve([], opts())
    try {
      const res = await new DigestClient(server.url, 'admin', adminKey).get('/platforms')
      expect(res.status).toBe(200)
      expect(list(parseXml(res.body).platforms.platform).map((p) => text(p.slug))).toEqual([
        'default',
        'in-flight-sigterm',
        'in-flight-sigint',
      ])
    } finally {
      expect((await server.stop('SIGINT')).code).toBe(0)
    }
  })
})

describe('mediactl migrate, seed and serve with pending migrations', () => {
  let applied: MigrateJson['migrations']
  let last: string

  it('migrate status --json lists every migration as applied', async () => {
    const status = await cliJson<MigrateJson>(['migrate', 'status'], opts())
    expect(status.action).toBe('status')
    expect(status.changed).toEqual([])
    applied = status.migrations
    expect(applied.map((m) => m.plugin)).toEqual(expect.arrayContaining(['platforms', 'identity']))
    for (const m of applied) expect(m.executed_at).toMatch(ISO)
    // identity depends on platforms, so its migration comes after.
    expect(applied.findIndex((m) => m.plugin === 'identity')).toBeGreaterThan(
      applied.findIndex((m) => m.plugin === 'platforms'),
    )
    // metadata depends on identity, so its migration comes after too.
    expect(applied.findIndex((m) => m.plugin === 'metadata')).toBeGreaterThan(
      applied.findIndex((m) => m.plugin === 'identity'),
    )
    last = applied.at(-1)!.name

    const plain = await cli(['migrate', 'status'], opts())
    expect(plain.code).toBe(0)
    const rows = plain.stdout.trimEnd().split('\n')
    expect(rows[0]).toMatch(/^MIGRATION\s+PLUGIN\s+APPLIED$/)
    expect(rows).toHaveLength(applied.length + 1)
  })

  it('migrate (up) with nothing pending says so', async () => {
    const result = await cli(['migrate'], opts())
    expect(result).toMatchObject({ code: 0, stdout: 'Nothing to do.\n' })
  })

  it('migrate down --json reverts the most recent migration', async () => {
    const down = await cliJson<MigrateJson>(['migrate', 'down'], opts())
    expect(down.action).toBe('down')
    expect(down.changed).toEqual([last])
    expect(down.migrations).toEqual(
      applied.map((m) => (m.name === last ? { ...m, executed_at: null } : { ...m, executed_at: expect.any(String) })),
    )
  })

  it('doctor fails with exit code 1 and says to run mediactl migrate', async () => {
    const result = await cli(['doctor'], opts())
    expect(result.code).toBe(1)
    const lines = result.stdout.split('\n')
    const failed = lines.findIndex((l) => l.startsWith('✗'))
    expect(lines[failed]).toMatch(new RegExp(`^✗ migrations +1 pending: ${last}$`))
    expect(lines[failed + 1]?.trim()).toBe('→ run "mediactl migrate"')
    expect(lines.filter((l) => l.startsWith('✗'))).toHaveLength(1)
  })

  it('serve refuses to start with exit code 1 and says how to fix it', async () => {
    const result = await cli(['serve', '--port', '0', '--host', '127.0.0.1'], opts())
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: `mediactl: 1 migration(s) pending (${last}): run "mediactl migrate" first, or start with "mediactl serve --migrate"\n`,
    })
  })

  it('platform create, user create and user key refuse while migrations are pending', async () => {
    const expected = { code: 1, stdout: '', stderr: 'mediactl: 1 migration(s) pending: run "mediactl migrate" first\n' }
    expect(await cli(['platform', 'create', '--name', 'Too Early'], opts())).toMatchObject(expected)
    expect(
      await cli(['user', 'create', '--platform', 'default', '--username', 'early', '--email', 'e@example.org'], opts()),
    ).toMatchObject(expected)
    expect(await cli(['user', 'key', 'admin'], opts())).toMatchObject(expected)
  })

  it('seed refuses while migrations are pending', async () => {
    const result = await cli(['seed'], opts())
    expect(result).toMatchObject({
      code: 1,
      stderr: 'mediactl: migrations are pending: run "mediactl migrate" before seeding\n',
    })
  })

  it('migrate up --json applies it again', async () => {
    const up = await cliJson<MigrateJson>(['migrate', 'up'], opts())
    expect(up.action).toBe('up')
    expect(up.changed).toEqual([last])
    for (const m of up.migrations) expect(m.executed_at).toMatch(ISO)
  })

  it('seed recreates the missing default roles and is idempotent', async () => {
    // The default roles are gone (deleted in process: no access uses them yet).
    await deleteRows(RoleEntity)
    expect(await countRows(RoleEntity)).toBe(0)
    expect(await cliJson(['seed'], opts())).toEqual({ plugins: ['identity', 'players'] })
    const seeded = await countRows(RoleEntity)
    expect(seeded).toBe(9) // 3 default roles on each of the 3 platforms
    const again = await cli(['seed'], opts())
    expect(again).toMatchObject({ code: 0, stdout: 'Seeds are in place.\n' })
    expect(await countRows(RoleEntity)).toBe(seeded)
    expect(await countRows(ProfileEntity)).toBeGreaterThanOrEqual(9)
  })

  it('serve --migrate applies pending migrations and serves', async () => {
    const down = await cliJson<MigrateJson>(['migrate', 'down', '--steps', String(applied.length)], opts())
    expect(down.changed).toEqual(applied.map((m) => m.name).reverse())
    for (const m of down.migrations) expect(m.executed_at).toBeNull()

    const server = await serve(['--migrate'], opts())
    try {
      for (const m of applied) await server.waitFor(`"migration":"${m.name}","msg":"migrating"`)
      // Every table was dropped: the old administrator is gone, init creates a new one.
      expect((await new DigestClient(server.url, 'admin', adminKey).get('/')).status).toBe(401)
      const init = await cliJson(['init'], opts())
      expect(init).toMatchObject({
        changed: true,
        steps: ['created the platform "Default" (default)', 'created the installation administrator "admin"'],
        username: 'admin',
      })
      const client = new DigestClient(server.url, 'admin', init.api_key as string)
      expect((await client.get('/')).status).toBe(200)
      expect((await client.get('/platforms')).status).toBe(200)
      const status = await cliJson<MigrateJson>(['migrate', 'status'], opts())
      for (const m of status.migrations) expect(m.executed_at).toMatch(ISO)
    } finally {
      expect((await server.stop()).code).toBe(0)
    }
  })
})

/** Deletes every row of an entity through the kernel, in process, on the instance's database. */
async function deleteRows(entity: typeof RoleEntity): Promise<void> {
  const kernel = await bootKernel({ cwd: dir, env: {}, logger: createLogger('silent') })
  try {
    await kernel.em().nativeDelete(entity, {})
  } finally {
    await kernel.close()
  }
}

/** Counts the rows of an entity through the kernel, in process, on the instance's database. */
async function countRows(entity: typeof ProfileEntity | typeof RoleEntity): Promise<number> {
  const kernel = await bootKernel({ cwd: dir, env: {}, logger: createLogger('silent') })
  try {
    return await kernel.em().count(entity as typeof ProfileEntity, {})
  } finally {
    await kernel.close()
  }
}
