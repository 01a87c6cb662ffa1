import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261122-metadata-init',
  async up(knex) {
    await knex.schema.createTable('metadata_definitions', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.string('type', 16).notNullable()
      t.json('file_types').notNullable()
      t.boolean('is_protected').notNullable()
      t.text('default_value').nullable()
      columns.reference(t, 'platform', 'platforms')
      columns.createdAt(t)
      t.unique(['platform_id', 'name'])
    })
  },
  async down(knex) {
    await knex.schema.dropTable('metadata_definitions')
  },
})
