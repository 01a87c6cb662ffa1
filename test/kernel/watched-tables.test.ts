import { EntitySchema } from '@mikro-orm/core'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineMigration, definePlugin, reply, xml } from '../../src/kernel/index.js'
import type { ProcessCache } from '../../src/kernel/cache/process-cache.js'
import { Migrator } from '../../src/kernel/db/migrator.js'
import { knexOf } from '../../src/kernel/db/orm.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { TEST_PG_URL } from '../helpers/database.js'
import { waitFor } from '../helpers/wait.js'

/** A plugin with a table of its own and no watch migration: the kernel watches it (cache-triggers-installed-by-the-kernel.md). */
interface Note {
  id: number
  text: string
}
const NoteEntity = new EntitySchema<Note>({
  name: 'TestNote',
  tableName: 'test_notes',
  properties: { id: { type: 'number', primary: true }, text: { type: 'string' } },
})
const createNotes = defineMigration({
  name: '20270201-test-notes',
  async up(knex) {
    await knex.schema.createTable('test_notes', (t) => {
      t.increments('id')
      t.string('text', 64).notNullable()
    })
  },
  async down(knex) {
    await knex.schema.dropTable('test_notes')
  },
})
let counts: ProcessCache<number> | undefined
const notes = definePlugin({
  name: 'test-notes',
  entities: [NoteEntity],
  migrations: [createNotes],
  register(ctx) {
    counts = ctx.cache<number>({ tables: ['test_notes'] })
    ctx.routes((r) =>
      r.get(
        '/test-notes/count',
        async () => {
          const n = await counts!.get('all', () => ctx.reader.count('select count(*) as n from test_notes'))
          return reply.xml(200, xml.str('count', String(n)))
        },
        { public: true },
      ),
    )
  },
})

const triggerOn = async (client: pg.Client, table: string): Promise<boolean> =>
  (
    await client.query(
      `select 1 from pg_trigger t join pg_class c on c.oid = t.tgrelid
       where c.relname = $1 and t.tgname = $1 || '_notify_change'`,
      [table],
    )
  ).rowCount === 1

describe.skipIf(!TEST_PG_URL)('tables of a plugin without a watch migration (PostgreSQL)', () => {
  let app: TestApp
  let other: pg.Client

  beforeAll(async () => {
    app = await startApp({ plugins: [notes] })
    other = new pg.Client({ connectionString: app.kernel.config.database.url })
    await other.connect()
  })
  afterAll(async () => {
    await other?.end()
    await app?.close()
  })

  const count = async (): Promise<string> => (await fetch(`${app.url}/test-notes/count`)).text()

  it('are watched: a write by another connection drops the plugin cache over them', async () => {
    expect(await triggerOn(other, 'test_notes')).toBe(true)
    await waitFor(() => app.kernel.cachesLive, { message: 'the change feed listening' })
    expect(await count()).toContain('[0]')
    expect(counts!.size).toBe(1)
    await other.query(`insert into test_notes (text) values ('from another process')`)
    await waitFor(() => counts!.size === 0, { message: 'the cache dropped by the write' })
    expect(await count()).toContain('[1]')
  })

  it('are not watched without the kernel: the migrations alone leave no trigger; migrating again puts it back', async () => {
    await other.query('drop trigger test_notes_notify_change on test_notes')
    const knex = knexOf(app.kernel.services.orm)
    // The plugin's own migrations (all applied), without the kernel's list of watched tables.
    expect(await new Migrator(knex, [{ ...createNotes, plugin: 'test-notes' }]).up()).toEqual([])
    expect(await triggerOn(other, 'test_notes')).toBe(false)
    // The kernel's migrator watches every plugin entity's table, idempotently.
    expect(await app.kernel.migrator.up()).toEqual([])
    expect(await triggerOn(other, 'test_notes')).toBe(true)
    expect(await app.kernel.migrator.up()).toEqual([])
    expect(await triggerOn(other, 'resources')).toBe(true)
  })
})
