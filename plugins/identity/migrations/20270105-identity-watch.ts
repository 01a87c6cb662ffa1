import { defineMigration, unwatchTable, watchTable } from '../../../src/kernel/index.js'

/** The tables behind credentials and role flags: their changes reach every process's caches. */
const TABLES = ['users', 'profiles', 'roles', 'accesses', 'user_groups', 'group_members']

export default defineMigration({
  name: '20270105-identity-watch',
  async up(knex) {
    for (const table of TABLES) await watchTable(knex, table)
  },
  async down(knex) {
    for (const table of TABLES) await unwatchTable(knex, table)
  },
})
