import { columns, defineMigration } from '../../db/migration.js'

export default defineMigration({
  name: '20261205-queue-inline-jobs',
  async up(knex) {
    await knex.schema.createTable('jobs', (t) => {
      columns.id(t)
      t.string('type', 128).notNullable()
      t.json('payload').notNullable()
      t.string('state', 16).notNullable()
      t.integer('attempts').notNullable()
      t.integer('max_attempts').notNullable()
      t.float('progress').notNullable()
      t.text('last_error').nullable()
      t.string('key', 255).nullable()
      t.string('live_key', 255).nullable().unique()
      t.datetime('run_after', { useTz: true }).notNullable()
      t.datetime('lease_until', { useTz: true }).nullable()
      t.string('lease_owner', 255).nullable()
      columns.createdAt(t)
      t.datetime('updated_at', { useTz: true }).notNullable()
      t.index(['state', 'run_after'])
      t.index(['state', 'lease_until'])
    })
  },
  async down(knex) {
    await knex.schema.dropTable('jobs')
  },
})
