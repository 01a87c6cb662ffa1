import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createLogger } from '../../src/kernel/index.js'
import type { DatabaseTarget } from '../../src/kernel/db/orm.js'
import { DatabaseLocks } from '../../src/kernel/state/database-locks.js'
import { DatabaseNonceCounter } from '../../src/kernel/state/database-nonce-counter.js'
import { MemoryLocks } from '../../src/kernel/state/memory-locks.js'
import { MemoryNonceCounter } from '../../src/kernel/state/memory-nonce-counter.js'
import { type StateSql, openStateSql } from '../../src/kernel/state/state-sql.js'
import { STATE_TABLES } from '../../src/kernel/state/state-tables.js'
import { TEST_PG_URL, freshDatabase } from '../helpers/database.js'
import { type StateUnderTest, sharedStateConformance } from './shared-state.conformance.js'

const log = createLogger('silent')
const TIMEOUTS = { connect_timeout: 5, statement_timeout: 30 }

sharedStateConformance('memory (state: memory)', 'process', () => {
  const counter = new MemoryNonceCounter()
  const locks = new MemoryLocks()
  return Promise.resolve({
    counters: [counter, counter],
    locks: [locks, locks],
    close: () => Promise.resolve(counter.close()),
  })
})

/** Two "processes" (each its own connections) on one database, and a third that can die. */
async function onDatabase(target: DatabaseTarget, cleanup: () => Promise<void>): Promise<StateUnderTest> {
  const connections: StateSql[] = []
  const open = (): StateSql => {
    const sql = openStateSql(target, TIMEOUTS, log)
    connections.push(sql)
    return sql
  }
  const [a, b] = [open(), open()]
  const locks = [new DatabaseLocks(a), new DatabaseLocks(b)] as const
  return {
    counters: [new DatabaseNonceCounter(a), new DatabaseNonceCounter(b)],
    locks: [...locks],
    mortalLocks: () => {
      const sql = openStateSql(target, TIMEOUTS, log)
      const mortal = new DatabaseLocks(sql)
      return Promise.resolve({
        locks: mortal,
        // Its renewals fail from now on, as a killed process's would stop.
        die: async () => {
          mortal.close()
          await sql.close()
        },
      })
    },
    close: async () => {
      for (const l of locks) l.close()
      for (const sql of connections) await sql.close()
      await cleanup()
    },
  }
}

sharedStateConformance('database (state: database), SQLite', 'installation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-state-'))
  return onDatabase({ dialect: 'sqlite', location: join(dir, 'mediactl.sqlite') }, () =>
    Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  )
})

sharedStateConformance(
  'database (state: database), PostgreSQL',
  'installation',
  async () => {
    const database = await freshDatabase()
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    for (const statement of STATE_TABLES) await client.query(statement)
    await client.end()
    return onDatabase({ dialect: 'postgresql', location: database.url }, () => database.drop())
  },
  { skip: !TEST_PG_URL },
)
