import { defineMigration } from '../../../src/kernel/index.js'

/** A platform's own date-time dialect for its clients (null: the installation's `api.timestamps`). */
export default defineMigration({
  name: '20261227-platforms-timestamps',
  async up(knex) {
    await knex.schema.alterTable('platforms', (t) => {
      t.string('timestamps', 16).nullable()
    })
  },
  async down(knex) {
    await knex.schema.alterTable('platforms', (t) => {
      t.dropColumn('timestamps')
    })
  },
})
