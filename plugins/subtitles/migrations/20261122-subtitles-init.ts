import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261122-subtitles-init',
  async up(knex) {
    await knex.schema.createTable('subtitles', (t) => {
      columns.id(t)
      t.string('public_id', 64).notNullable()
      t.string('language', 2).notNullable()
      t.string('format', 3).notNullable()
      t.string('vtt_key', 512).notNullable()
      t.string('source_key', 512).notNullable()
      columns.reference(t, 'file', 'files')
      columns.createdAt(t)
      t.unique(['file_id', 'public_id'])
    })
  },
  async down(knex) {
    await knex.schema.dropTable('subtitles')
  },
})
