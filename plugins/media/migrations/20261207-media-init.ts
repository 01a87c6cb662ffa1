import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261207-media-init',
  async up(knex) {
    await knex.schema.createTable('medias', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.string('domain', 255).notNullable().unique()
      t.text('description').notNullable()
      t.string('contact_email', 255).notNullable()
      t.integer('max_streams').notNullable()
      columns.reference(t, 'platform', 'platforms')
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('medias')
  },
})
