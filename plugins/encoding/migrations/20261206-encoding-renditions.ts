import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261206-encoding-renditions',
  async up(knex) {
    await knex.schema.createTable('renditions', (t) => {
      columns.id(t)
      columns.reference(t, 'file', 'files')
      t.string('kind', 16).notNullable()
      t.string('name', 64).notNullable()
      t.string('storage_key', 512).notNullable()
      t.bigInteger('size').notNullable()
      t.string('mime_type', 127).notNullable()
      t.integer('width').nullable()
      t.integer('height').nullable()
      t.float('duration').nullable()
      t.boolean('selected').notNullable()
      columns.createdAt(t)
      t.unique(['file_id', 'kind', 'name'])
    })
  },
  async down(knex) {
    await knex.schema.dropTable('renditions')
  },
})
