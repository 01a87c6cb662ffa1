import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261211-widgets-init',
  async up(knex) {
    await knex.schema.createTable('widgets', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.integer('width').notNullable()
      t.integer('height').notNullable()
      columns.reference(t, 'resource', 'resources')
      columns.reference(t, 'player_theme', 'player_themes', { nullable: true, onDelete: 'set null' })
      columns.reference(t, 'player_behavior', 'player_behaviors', { nullable: true, onDelete: 'set null' })
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('widgets')
  },
})
