import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS_TABLE, databaseTarget } from '../../src/kernel/index.js'
import { STATE_TABLE_NAMES } from '../../src/kernel/state/state-tables.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { TEST_PG_URL } from '../helpers/database.js'

/**
 * The migrations (knex, per plugin) and the entity mappings (MikroORM) describe the same
 * schema twice; MikroORM's schema generator compares the live database with the mappings.
 * Runs on SQLite, and on PostgreSQL when MEDIACTL_TEST_DATABASE_URL is set.
 */
const onPostgres = Boolean(TEST_PG_URL)

async function schemaDiff(app: TestApp): Promise<string> {
  return app.kernel.orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false })
}

async function raw(app: TestApp, sql: string): Promise<void> {
  await app.kernel.em().getKnex().raw(sql)
}

/** The shared state's tables (no entity maps them): PostgreSQL only, SQLite keeps them in a file of their own. */
const stateTables: readonly string[] = onPostgres ? STATE_TABLE_NAMES : []

/** Tables of the database, sorted (SQLite internals excluded). */
async function tableNames(app: TestApp): Promise<string[]> {
  const knex = app.kernel.em().getKnex()
  if (databaseTarget(app.kernel.config).dialect === 'sqlite') {
    const rows = (await knex.raw(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite%'",
    )) as { name: string }[]
    return rows.map((r) => r.name).sort()
  }
  const result = (await knex.raw('select tablename as name from pg_tables where schemaname = current_schema()')) as {
    rows: { name: string }[]
  }
  return result.rows.map((r) => r.name).sort()
}

/** The tables the enabled plugins' entities map to. */
function entityTables(app: TestApp): string[] {
  return Object.values(app.kernel.orm.getMetadata().getAll())
    .filter((meta) => !meta.embeddable && !meta.virtual && meta.tableName)
    .map((meta) => meta.tableName)
    .sort()
}

describe(`schema of the migrations vs the entities (${onPostgres ? 'postgresql' : 'sqlite'})`, () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('runs on the expected database', () => {
    expect(databaseTarget(app.kernel.config).dialect).toBe(onPostgres ? 'postgresql' : 'sqlite')
  })

  it('after migrating, the schema generator reports no difference', async () => {
    expect(await app.kernel.pendingMigrations()).toEqual([])
    const entities = entityTables(app)
    expect(entities).toEqual(expect.arrayContaining(['platforms', 'profiles', 'users']))
    // Every entity table exists, plus only the migrations bookkeeping table.
    expect(await tableNames(app)).toEqual([...entities, MIGRATIONS_TABLE, ...stateTables].sort())
    expect(await schemaDiff(app)).toBe('')
  })

  describe('the comparison can fail', () => {
    it('reports a dropped index', async () => {
      await raw(app, 'drop index users_platform_id_index')
      const diff = await schemaDiff(app)
      expect(diff).not.toBe('')
      expect(diff).toMatch(/create index .users_platform_id_index. on .users. \(.platform_id.\)/)
      await raw(app, 'create index users_platform_id_index on users (platform_id)')
      expect(await schemaDiff(app)).toBe('')
    })

    it('reports a column that no entity maps', async () => {
      await raw(app, 'alter table platforms add column surplus integer')
      const diff = await schemaDiff(app)
      expect(diff).toMatch(/alter table .platforms. drop column .surplus./)
      await raw(app, 'alter table platforms drop column surplus')
      expect(await schemaDiff(app)).toBe('')
    })

    it('reports a table that no entity maps (so the migrations table is really excluded)', async () => {
      await raw(app, 'create table stray_table (id integer)')
      expect(await schemaDiff(app)).toMatch(/drop table if exists .stray_table./)
      await raw(app, 'drop table stray_table')
      expect(await schemaDiff(app)).toBe('')
    })

    it.runIf(onPostgres)('reports a column type and a foreign key rule that differ (postgresql)', async () => {
      await raw(app, 'alter table platforms alter column name type varchar(100)')
      expect(await schemaDiff(app)).toMatch(/"platforms".*"name" type varchar\(255\)/s)
      await raw(app, 'alter table platforms alter column name type varchar(255)')
      expect(await schemaDiff(app)).toBe('')

      await raw(app, 'alter table users drop constraint users_profile_id_foreign')
      await raw(
        app,
        'alter table users add constraint users_profile_id_foreign foreign key (profile_id) references profiles (id) on update cascade on delete cascade',
      )
      expect(await schemaDiff(app)).toMatch(/users_profile_id_foreign.*on delete restrict/s)
      await raw(app, 'alter table users drop constraint users_profile_id_foreign')
      await raw(
        app,
        'alter table users add constraint users_profile_id_foreign foreign key (profile_id) references profiles (id) on update cascade on delete restrict',
      )
      expect(await schemaDiff(app)).toBe('')
    })
  })
})

describe(`migrating down and up again (${onPostgres ? 'postgresql' : 'sqlite'})`, () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('all the way down leaves no plugin tables; up again restores an empty diff', async () => {
    const all = (await app.kernel.migrator.status()).map((m) => m.name)
    expect(all.length).toBeGreaterThanOrEqual(2)
    const entities = entityTables(app)

    const reverted = await app.kernel.migrator.down(all.length)
    expect(reverted).toEqual([...all].reverse())
    expect(await app.kernel.pendingMigrations()).toEqual(all)
    // Only the bookkeeping table is left, and it is empty.
    expect(await tableNames(app)).toEqual([MIGRATIONS_TABLE])
    for (const table of entities) expect(await app.kernel.em().getKnex().schema.hasTable(table)).toBe(false)
    expect(await app.kernel.em().getKnex()(MIGRATIONS_TABLE).count({ n: '*' })).toEqual([{ n: onPostgres ? '0' : 0 }])
    // The comparison now wants every entity table back.
    const diff = await schemaDiff(app)
    for (const table of entities) expect(diff).toMatch(new RegExp(`create table .${table}.`))

    // Going further down does nothing.
    expect(await app.kernel.migrator.down(1)).toEqual([])

    expect(await app.kernel.migrator.up()).toEqual(all)
    expect(await app.kernel.pendingMigrations()).toEqual([])
    expect(await tableNames(app)).toEqual([...entities, MIGRATIONS_TABLE, ...stateTables].sort())
    expect(await schemaDiff(app)).toBe('')
  })

  it('one step down removes only the last migration, and up applies it again', async () => {
    const all = (await app.kernel.migrator.status()).map((m) => m.name)
    const last = all.at(-1)!
    expect(await app.kernel.migrator.down(1)).toEqual([last])
    expect(await app.kernel.pendingMigrations()).toEqual([last])
    expect(await schemaDiff(app)).not.toBe('')
    expect(await app.kernel.migrator.up()).toEqual([last])
    expect(await schemaDiff(app)).toBe('')
  })
})
