import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261122-files-init',
  async up(knex) {
    await knex.schema.createTable('directories', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      columns.reference(t, 'user', 'users')
      columns.reference(t, 'parent', 'directories', { nullable: true, onDelete: 'cascade' })
      columns.createdAt(t)
    })
    await knex.schema.createTable('files', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.bigInteger('size').notNullable()
      t.bigInteger('stored_bytes').notNullable()
      t.string('type', 16).notNullable()
      t.string('mime_type', 127).notNullable()
      t.integer('encoding_status').notNullable()
      t.float('encoding_progress').notNullable()
      t.text('encoding_error').nullable()
      t.string('storage_key', 512).notNullable()
      t.string('storage_prefix', 512).notNullable()
      t.json('metadata').notNullable()
      columns.reference(t, 'user', 'users')
      columns.reference(t, 'platform', 'platforms')
      columns.reference(t, 'directory', 'directories', { nullable: true, onDelete: 'cascade' })
      columns.createdAt(t)
      t.datetime('updated_at', { useTz: true }).notNullable()
    })
    await knex.schema.createTable('pending_uploads', (t) => {
      columns.id(t)
      t.string('name', 255).notNullable()
      t.integer('chunks').notNullable()
      t.json('pieces').notNullable()
      t.json('piece_sizes').notNullable()
      t.bigInteger('received_bytes').notNullable()
      columns.reference(t, 'user', 'users')
      columns.reference(t, 'platform', 'platforms')
      columns.reference(t, 'directory', 'directories', { nullable: true, onDelete: 'cascade' })
      columns.createdAt(t)
      t.datetime('updated_at', { useTz: true }).notNullable().index()
      t.unique(['user_id', 'name'])
    })
    await knex.schema.createTable('storage_trash', (t) => {
      columns.id(t)
      t.string('target', 512).notNullable()
      t.datetime('not_before', { useTz: true }).notNullable().index()
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('storage_trash')
    await knex.schema.dropTable('pending_uploads')
    await knex.schema.dropTable('files')
    await knex.schema.dropTable('directories')
  },
})
