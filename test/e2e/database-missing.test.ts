import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_PG_URL } from '../helpers/database.js'
import { cli, cliJson, removeDir, tempDir } from './harness.js'

/** A database URL naming a database that does not exist (a typo): an error saying so, never a fresh empty database. */

async function exists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_PG_URL })
  await client.connect()
  try {
    return ((await client.query('select 1 from pg_database where datname = $1', [name])).rowCount ?? 0) > 0
  } finally {
    await client.end()
  }
}

async function drop(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_PG_URL })
  await client.connect()
  try {
    await client.query(`drop database if exists ${name} with (force)`)
  } finally {
    await client.end()
  }
}

describe.skipIf(!TEST_PG_URL)('a PostgreSQL database that does not exist (MEDIACTL_TEST_DATABASE_URL)', () => {
  const name = `mediactl_typo_${randomBytes(4).toString('hex')}`
  let dir: string
  let env: Record<string, string>

  beforeAll(() => {
    dir = tempDir()
    const url = new URL(TEST_PG_URL!)
    url.pathname = `/${name}`
    env = { MEDIACTL_DATABASE_URL: url.toString() }
  })
  afterAll(async () => {
    await drop(name)
    removeDir(dir)
  })

  it.each([
    ['migrate'],
    ['migrate', 'status'],
    ['seed'],
    ['purge'],
    ['serve'],
    ['worker'],
    ['jobs', 'list'],
    ['jobs', 'retry', '1'],
    ['jobs', 'cancel', '1'],
    ['user', 'create', '--platform', 'default', '--username', 'ann', '--email', 'ann@example.org'],
    ['user', 'key', 'ann'],
    ['platform', 'create', '--name', 'Typo'],
    ['platform', 'update', 'default', '--timestamps', 'unix'],
    ['init', '--admin-email', 'a@example.org'],
  ])(
    '`mediactl %s` fails naming the database and how to create it, and creates nothing',
    async (...args) => {
      const result = await cli(args, { cwd: dir, env })
      expect(result.code, result.stdout).not.toBe(0)
      expect(result.stderr).toContain(`the database "${name}" does not exist on 127.0.0.1:5432`)
      expect(result.stderr).toContain('mediactl init --create-database')
      expect(result.stderr).not.toMatch(/\n\s+at /)
      expect(await exists(name)).toBe(false)
    },
    60_000,
  )

  it('`mediactl doctor` reports it as the database check failing, and creates nothing', async () => {
    const result = await cli(['doctor'], { cwd: dir, env })
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(new RegExp(`✗ database +postgresql at .*the database "${name}" does not exist`))
    expect(result.stdout).toContain(
      '→ correct database.url (MEDIACTL_DATABASE_URL) if it has a typo, or create the database',
    )
    expect(await exists(name)).toBe(false)
  }, 60_000)

  it('`mediactl init --create-database` creates it, then initializes; run again it changes nothing', async () => {
    const first = await cliJson<{ steps: string[] }>(['init', '--create-database', '--admin-email', 'a@example.org'], {
      cwd: dir,
      env,
    })
    expect(first.steps[0]).toMatch(/^created the database /)
    expect(await exists(name)).toBe(true)
    const again = await cliJson<{ changed: boolean; steps: string[] }>(
      ['init', '--create-database', '--admin-email', 'a@example.org'],
      { cwd: dir, env },
    )
    expect(again.changed).toBe(false)
    expect(again.steps.some((step) => step.startsWith('created the database'))).toBe(false)
  }, 120_000)
})
