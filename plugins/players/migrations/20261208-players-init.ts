import { columns, defineMigration } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20261208-players-init',
  async up(knex) {
    await knex.schema.createTable('player_themes', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.string('background_color', 7).notNullable()
      t.string('text_color', 7).notNullable()
      t.string('accent_color', 7).notNullable()
      t.string('logo_url', 1024).nullable()
      t.string('logo_position', 16).notNullable()
      columns.reference(t, 'platform', 'platforms')
      columns.createdAt(t)
    })
    await knex.schema.createTable('player_behaviors', (t) => {
      columns.id(t)
      columns.slug(t)
      t.string('name', 255).notNullable()
      t.boolean('controls').notNullable()
      t.boolean('autoplay').notNullable()
      t.boolean('muted').notNullable()
      t.boolean('loop').notNullable()
      t.integer('start_time').notNullable()
      t.boolean('subtitles_on').notNullable()
      t.string('subtitle_language', 2).nullable()
      columns.reference(t, 'platform', 'platforms')
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('player_behaviors')
    await knex.schema.dropTable('player_themes')
  },
})
