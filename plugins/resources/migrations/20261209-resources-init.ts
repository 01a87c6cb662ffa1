import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261209-resources-init',
  async up(knex) {
    await knex.schema.createTable('resources', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('title', 255).notNullable()
      t.string('subtitle', 255).notNullable()
      t.text('description').notNullable()
      t.datetime('published_at', { useTz: true }).nullable()
      t.string('visibility', 16).notNullable()
      t.integer('views').notNullable()
      t.json('metadata').notNullable()
      columns.reference(t, 'file', 'files')
      columns.reference(t, 'stream', 'streams')
      columns.createdAt(t)
      t.datetime('updated_at', { useTz: true }).notNullable()
      t.index(['stream_id', 'id'])
      t.index(['stream_id', 'visibility', 'id'])
    })
  },
  async down(knex) {
    await knex.schema.dropTable('resources')
  },
})
