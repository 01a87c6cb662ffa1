import { defineMigration, unwatchTable, watchTable } from '../../../src/kernel/index.js'

/** Changes to metadata definitions reach every process's cache of a platform's definitions. */
export default defineMigration({
  name: '20270127-metadata-watch',
  async up(knex) {
    await watchTable(knex, 'metadata_definitions')
  },
  async down(knex) {
    await unwatchTable(knex, 'metadata_definitions')
  },
})
