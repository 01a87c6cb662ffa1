import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261208-streams-init',
  async up(knex) {
    await knex.schema.createTable('streams', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('title', 255).notNullable()
      t.string('subtitle', 255).notNullable()
      t.text('description').notNullable()
      t.string('visibility', 16).notNullable()
      columns.reference(t, 'media', 'medias')
      columns.reference(t, 'parent', 'streams', { nullable: true, onDelete: 'cascade' })
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('streams')
  },
})
