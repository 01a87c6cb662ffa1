import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261121-platforms-init',
  async up(knex) {
    await knex.schema.createTable('platforms', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.integer('max_users').notNullable()
      t.bigInteger('max_space').notNullable()
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('platforms')
  },
})
