import { defineMigration } from '../../db/migration.js'

/** What a job works on, as operators name it (a file's slug): `jobs list --file`, `jobs retry <slug>`. */
export default defineMigration({
  name: '20261228-jobs-subject',
  async up(knex) {
    await knex.schema.alterTable('jobs', (t) => {
      t.string('subject', 255).nullable()
      t.index(['subject'])
    })
  },
  async down(knex) {
    await knex.schema.alterTable('jobs', (t) => {
      t.dropIndex(['subject'])
      t.dropColumn('subject')
    })
  },
})
