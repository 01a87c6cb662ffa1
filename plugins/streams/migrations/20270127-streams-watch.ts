import { defineMigration, unwatchTable, watchTable } from '../../../src/kernel/index.js'

/** Changes to streams reach every process's caches of their parents and visibility. */
export default defineMigration({
  name: '20270127-streams-watch',
  async up(knex) {
    await watchTable(knex, 'streams')
  },
  async down(knex) {
    await unwatchTable(knex, 'streams')
  },
})
