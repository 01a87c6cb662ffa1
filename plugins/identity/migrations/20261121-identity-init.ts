import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261121-identity-init',
  async up(knex) {
    await knex.schema.createTable('profiles', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.bigInteger('quota').notNullable()
      t.json('permissions').notNullable()
      columns.reference(t, 'platform', 'platforms')
      columns.createdAt(t)
    })
    await knex.schema.createTable('users', (t) => {
      columns.id(t)
      t.string('username', 128).notNullable().unique()
      t.string('email', 255).notNullable()
      t.string('first_name', 255).nullable()
      t.string('last_name', 255).nullable()
      t.string('telephone', 20).nullable()
      t.string('address', 255).nullable()
      t.string('city', 100).nullable()
      t.string('zipcode', 5).nullable()
      t.string('country', 2).nullable()
      t.string('language', 2).nullable()
      t.boolean('is_active').notNullable()
      t.string('password_hash', 255).nullable()
      t.string('ha1', 32).notNullable()
      columns.reference(t, 'platform', 'platforms')
      columns.reference(t, 'profile', 'profiles', { onDelete: 'restrict' })
      columns.createdAt(t)
      t.unique(['platform_id', 'email'])
    })
  },
  async down(knex) {
    await knex.schema.dropTable('users')
    await knex.schema.dropTable('profiles')
  },
})
