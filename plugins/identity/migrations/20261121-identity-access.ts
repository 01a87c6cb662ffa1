import { columns, defineMigration } from '../../../src/kernel/index.js'

/** Groups and their members, roles, and accesses. */
export default defineMigration({
  name: '20261121-identity-access',
  async up(knex) {
    await knex.schema.createTable('user_groups', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      columns.reference(t, 'platform', 'platforms')
      columns.createdAt(t)
    })
    await knex.schema.createTable('group_members', (t) => {
      columns.id(t)
      columns.reference(t, 'group', 'user_groups')
      columns.reference(t, 'user', 'users')
      columns.createdAt(t)
      t.unique(['group_id', 'user_id'])
    })
    await knex.schema.createTable('roles', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.json('permissions').notNullable()
      columns.reference(t, 'platform', 'platforms')
      columns.createdAt(t)
    })
    await knex.schema.createTable('accesses', (t) => {
      columns.id(t)
      t.string('public_id', 16).notNullable().unique()
      columns.reference(t, 'user', 'users', { nullable: true, onDelete: 'cascade' })
      columns.reference(t, 'group', 'user_groups', { nullable: true, onDelete: 'cascade' })
      t.string('object_kind', 32).notNullable()
      t.integer('object_id').notNullable()
      columns.reference(t, 'role', 'roles', { onDelete: 'restrict' })
      columns.reference(t, 'platform', 'platforms')
      columns.createdAt(t)
      t.index(['object_kind', 'object_id'])
    })
  },
  async down(knex) {
    await knex.schema.dropTable('accesses')
    await knex.schema.dropTable('roles')
    await knex.schema.dropTable('group_members')
    await knex.schema.dropTable('user_groups')
  },
})
