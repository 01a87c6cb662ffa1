import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261129-console-init',
  async up(knex) {
    await knex.schema.createTable('console_sessions', (t) => {
      columns.id(t)
      t.string('id_hash', 64).notNullable().unique()
      columns.reference(t, 'user', 'users')
      t.string('csrf', 64).notNullable()
      columns.createdAt(t)
      t.datetime('seen_at', { useTz: true }).notNullable()
      t.datetime('expires_at', { useTz: true }).notNullable().index()
    })
    await knex.schema.createTable('console_sign_in_links', (t) => {
      columns.id(t)
      t.string('token_hash', 64).notNullable().unique()
      columns.reference(t, 'user', 'users')
      columns.createdAt(t)
      t.datetime('expires_at', { useTz: true }).notNullable().index()
      t.datetime('used_at', { useTz: true }).nullable()
    })
    await knex.schema.createTable('console_sign_in_failures', (t) => {
      columns.id(t)
      t.string('subject', 200).notNullable()
      t.datetime('failed_at', { useTz: true }).notNullable()
      t.index(['subject', 'failed_at'])
    })
  },
  async down(knex) {
    await knex.schema.dropTable('console_sign_in_failures')
    await knex.schema.dropTable('console_sign_in_links')
    await knex.schema.dropTable('console_sessions')
  },
})
