import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Knex, knex as createKnex } from '@mikro-orm/knex'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { columns, defineMigration } from '../../src/kernel/db/migration.js'
import { MIGRATIONS_TABLE, Migrator, type OwnedMigration } from '../../src/kernel/db/migrator.js'

let dir: string
let file: string
let knex: Knex

function open(): Knex {
  return createKnex({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true })
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-migrator-'))
  file = join(dir, 'test.sqlite')
  knex = open()
})
afterEach(async () => {
  await knex.destroy()
  rmSync(dir, { recursive: true, force: true })
})

function table(plugin: string, name: string, tableName: string): OwnedMigration {
  return {
    plugin,
    ...defineMigration({
      name,
      up: async (trx) => {
        await trx.schema.createTable(tableName, (t) => {
          columns.id(t)
          columns.slug(t)
          columns.createdAt(t)
        })
      },
      down: async (trx) => {
        await trx.schema.dropTable(tableName)
      },
    }),
  }
}

const first = table('platforms', '20261121-platforms-init', 'platforms')
const second = table('identity', '20261121-identity-init', 'users')
const third = table('media', '20261122-media-init', 'media')

async function recorded(): Promise<{ name: string; plugin: string }[]> {
  return (await knex(MIGRATIONS_TABLE).select('name', 'plugin').orderBy('name')) as { name: string; plugin: string }[]
}

describe('Migrator', () => {
  it('reports every migration pending on an empty database', async () => {
    const migrator = new Migrator(knex, [first, second])
    expect((await migrator.pending()).map((m) => m.name)).toEqual([first.name, second.name])
    expect(await migrator.status()).toEqual([
      { name: first.name, plugin: 'platforms', executedAt: null },
      { name: second.name, plugin: 'identity', executedAt: null },
    ])
    expect(await knex.schema.hasTable(MIGRATIONS_TABLE)).toBe(true)
  })

  it('applies pending migrations in order and records each one', async () => {
    const migrator = new Migrator(knex, [first, second])
    const seen: string[] = []
    const before = Date.now()
    expect(await migrator.up((m) => seen.push(m.name))).toEqual([first.name, second.name])
    expect(seen).toEqual([first.name, second.name])
    expect(await knex.schema.hasTable('platforms')).toBe(true)
    expect(await knex.schema.hasTable('users')).toBe(true)
    expect(await migrator.pending()).toEqual([])
    expect(await recorded()).toEqual([
      { name: second.name, plugin: 'identity' },
      { name: first.name, plugin: 'platforms' },
    ])
    const status = await migrator.status()
    for (const entry of status) {
      expect(entry.executedAt).toBeInstanceOf(Date)
      expect(entry.executedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000)
      expect(entry.executedAt!.getTime()).toBeLessThanOrEqual(Date.now() + 1000)
    }
  })

  it('is idempotent: a second up applies nothing', async () => {
    const migrator = new Migrator(knex, [first, second])
    await migrator.up()
    expect(await migrator.up()).toEqual([])
    expect(await recorded()).toHaveLength(2)
  })

  it('applies only the new migrations of a later release, and survives a reopen', async () => {
    await new Migrator(knex, [first]).up()
    await knex.destroy()
    knex = open()
    const migrator = new Migrator(knex, [first, second, third])
    expect((await migrator.pending()).map((m) => m.name)).toEqual([second.name, third.name])
    expect(await migrator.up()).toEqual([second.name, third.name])
    expect((await migrator.status()).every((s) => s.executedAt !== null)).toBe(true)
  })

  it('reverts the most recent migration by default, then more by steps', async () => {
    const migrator = new Migrator(knex, [first, second, third])
    await migrator.up()
    const seen: string[] = []
    expect(await migrator.down(undefined, (m) => seen.push(m.name))).toEqual([third.name])
    expect(seen).toEqual([third.name])
    expect(await knex.schema.hasTable('media')).toBe(false)
    expect(await knex.schema.hasTable('users')).toBe(true)
    expect((await migrator.pending()).map((m) => m.name)).toEqual([third.name])
    expect(await migrator.down(5)).toEqual([second.name, first.name])
    expect(await knex.schema.hasTable('platforms')).toBe(false)
    expect(await recorded()).toEqual([])
    expect(await migrator.down()).toEqual([])
  })

  it('applies again after a revert', async () => {
    const migrator = new Migrator(knex, [first, second])
    await migrator.up()
    await migrator.down(2)
    expect(await migrator.up()).toEqual([first.name, second.name])
    expect(await knex.schema.hasTable('users')).toBe(true)
  })

  it('a failed migration leaves nothing recorded and nothing half applied', async () => {
    const broken: OwnedMigration = {
      plugin: 'broken',
      name: '20261123-broken',
      up: async (trx) => {
        await trx.schema.createTable('half_done', (t) => {
          t.increments('id')
        })
        await trx('half_done').insert({})
        throw new Error('boom in migration')
      },
      down: async () => undefined,
    }
    const migrator = new Migrator(knex, [first, broken, third])
    await expect(migrator.up()).rejects.toThrow('boom in migration')
    expect(await knex.schema.hasTable('half_done')).toBe(false)
    expect(await knex.schema.hasTable('platforms')).toBe(true)
    expect(await knex.schema.hasTable('media')).toBe(false)
    expect(await recorded()).toEqual([{ name: first.name, plugin: 'platforms' }])
    expect((await migrator.pending()).map((m) => m.name)).toEqual([broken.name, third.name])
  })

  it('a failed revert keeps the migration recorded', async () => {
    const stubborn: OwnedMigration = {
      ...first,
      down: async (trx) => {
        await trx.schema.dropTable('platforms')
        throw new Error('cannot revert')
      },
    }
    const migrator = new Migrator(knex, [stubborn])
    await migrator.up()
    await expect(migrator.down()).rejects.toThrow('cannot revert')
    expect(await knex.schema.hasTable('platforms')).toBe(true)
    expect(await recorded()).toEqual([{ name: first.name, plugin: 'platforms' }])
  })

  it('refuses two migrations with the same name', () => {
    expect(() => new Migrator(knex, [first, { ...second, name: first.name }])).toThrow(
      `migration name "${first.name}" is used twice (plugin identity)`,
    )
  })

  it('creates the reference columns the entity mappings expect', async () => {
    const migrator = new Migrator(knex, [
      first,
      {
        plugin: 'identity',
        name: 'refs',
        up: async (trx) => {
          await trx.schema.createTable('members', (t) => {
            columns.id(t)
            columns.reference(t, 'platform', 'platforms')
            columns.reference(t, 'owner', 'platforms', { nullable: true })
          })
        },
        down: async (trx) => {
          await trx.schema.dropTable('members')
        },
      },
    ])
    await migrator.up()
    const info = await knex('members').columnInfo()
    expect(Object.keys(info).sort()).toEqual(['id', 'owner_id', 'platform_id'])
    expect(info.platform_id!.nullable).toBe(false)
    expect(info.owner_id!.nullable).toBe(true)
  })
})
