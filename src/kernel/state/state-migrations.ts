import { defineMigration } from '../db/migration.js'
import { STATE_TABLES } from './state-tables.js'

/**
 * The tables of `state: database` on PostgreSQL. On SQLite they live in a file of their own
 * (state-sql.ts), made on first use: nothing to migrate.
 */
const sharedState = defineMigration({
  name: '20270201-kernel-shared-state',
  async up(knex) {
    if ((knex.client as { dialect?: string }).dialect !== 'postgresql') return
    for (const statement of STATE_TABLES) await knex.raw(statement)
  },
  async down(knex) {
    if ((knex.client as { dialect?: string }).dialect !== 'postgresql') return
    await knex.raw('drop table if exists kernel_locks')
    await knex.raw('drop table if exists kernel_nonce_counts')
  },
})

export const STATE_MIGRATIONS = [sharedState] as const
