import { defineMigration, unwatchTable, watchTable } from '../../../src/kernel/index.js'

/** Changes to platforms reach every process's caches (the identity plugin's credentials carry the platform's dialect). */
export default defineMigration({
  name: '20270105-platforms-watch',
  async up(knex) {
    await watchTable(knex, 'platforms')
  },
  async down(knex) {
    await unwatchTable(knex, 'platforms')
  },
})
