import { defineMigration, unwatchTable, watchTable } from '../../../src/kernel/index.js'

/** Changes to channels reach every process's cache of what a media's online channels offer. */
export default defineMigration({
  name: '20270127-channels-watch',
  async up(knex) {
    await watchTable(knex, 'channels')
  },
  async down(knex) {
    await unwatchTable(knex, 'channels')
  },
})
