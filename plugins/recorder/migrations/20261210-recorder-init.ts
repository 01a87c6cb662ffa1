import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261210-recorder-init',
  async up(knex) {
    await knex.schema.createTable('recorder_codes', (t) => {
      columns.id(t)
      t.string('code_hash', 64).notNullable().unique()
      columns.reference(t, 'user', 'users')
      columns.createdAt(t)
      t.datetime('expires_at', { useTz: true }).notNullable().index()
      t.datetime('used_at', { useTz: true }).nullable()
    })
  },
  async down(knex) {
    await knex.schema.dropTable('recorder_codes')
  },
})
