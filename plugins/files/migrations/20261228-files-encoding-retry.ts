import { defineMigration } from '../../../src/kernel/index.js'

/** The retry a waiting file waits for: its attempt, of how many, and when (`encoding_retry` in the answers). */
export default defineMigration({
  name: '20261228-files-encoding-retry',
  async up(knex) {
    await knex.schema.alterTable('files', (t) => {
      t.integer('encoding_attempt').nullable()
      t.integer('encoding_max_attempts').nullable()
      t.datetime('encoding_next_try', { useTz: true }).nullable()
    })
  },
  async down(knex) {
    await knex.schema.alterTable('files', (t) => {
      t.dropColumn('encoding_attempt')
      t.dropColumn('encoding_max_attempts')
      t.dropColumn('encoding_next_try')
    })
  },
})
