import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261212-player-view-sessions',
  async up(knex) {
    await knex.schema.createTable('player_view_sessions', (t) => {
      columns.id(t)
      t.string('session_id', 32).notNullable().unique()
      t.datetime('expires_at', { useTz: true }).notNullable().index()
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('player_view_sessions')
  },
})
