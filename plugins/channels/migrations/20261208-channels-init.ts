import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261208-channels-init',
  async up(knex) {
    await knex.schema.createTable('channels', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 64).notNullable()
      t.string('type', 64).notNullable()
      t.boolean('is_online').notNullable()
      t.string('theme', 64).nullable()
      t.string('skin', 64).nullable()
      columns.reference(t, 'media', 'medias')
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('channels')
  },
})
