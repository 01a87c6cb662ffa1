import { columns, defineMigration, unwatchTable, watchTable } from '../../../src/kernel/index.js'

export default defineMigration({
  name: '20270129-webhooks-init',
  async up(knex) {
    await knex.schema.createTable('webhooks', (t) => {
      columns.id(t)
      // What addresses it (/webhook/<public_id>): random, so ids tell nothing of other tenants' webhooks.
      t.string('public_id', 16).notNullable().unique()
      columns.reference(t, 'platform', 'platforms')
      t.string('url', 2048).notNullable()
      // The subscribed events, comma-separated (`*`: all but the opt-in ones).
      t.string('events', 1024).notNullable()
      t.string('description', 1024).notNullable()
      t.boolean('enabled').notNullable()
      t.string('secret', 128).notNullable()
      // The secret a rotation replaced: it signs too until `previous_secret_until`.
      t.string('previous_secret', 128).nullable()
      t.datetime('previous_secret_until', { useTz: true }).nullable()
      // Why the appliance disabled it (deliveries failing for webhooks.disable_after); null otherwise.
      t.string('disabled_reason', 1024).nullable()
      // Since when deliveries fail without one succeeding; null while they succeed.
      t.datetime('failing_since', { useTz: true }).nullable()
      columns.createdAt(t)
      t.datetime('updated_at', { useTz: true }).notNullable()
    })
    // Every process keeps a platform's subscriptions until this table changes (docs/operations.md, Caches).
    await watchTable(knex, 'webhooks')
    await knex.schema.createTable('webhook_messages', (t) => {
      columns.id(t)
      columns.reference(t, 'webhook', 'webhooks')
      // The `webhook-id` header: the same for every attempt and redelivery of this event.
      t.string('event_id', 40).notNullable().unique()
      t.string('type', 64).notNullable()
      // What deliveries keep in order: events of one subject (a file, a resource) go out oldest first.
      t.string('subject', 255).notNullable()
      // The exact JSON sent (the signature covers these bytes).
      t.text('body').notNullable()
      // pending, delivered or failed (given up).
      t.string('state', 16).notNullable()
      t.integer('attempts').notNullable()
      columns.createdAt(t)
      t.datetime('updated_at', { useTz: true }).notNullable()
      t.index(['webhook_id', 'subject', 'state', 'id'])
      t.index(['created_at'])
    })
    await knex.schema.createTable('webhook_deliveries', (t) => {
      columns.id(t)
      t.string('public_id', 16).notNullable().unique()
      columns.reference(t, 'webhook', 'webhooks')
      columns.reference(t, 'message', 'webhook_messages')
      t.integer('attempt').notNullable()
      t.integer('status').nullable()
      t.string('error', 1024).nullable()
      t.integer('duration_ms').notNullable()
      t.text('response').nullable()
      columns.createdAt(t)
    })
  },
  async down(knex) {
    await knex.schema.dropTable('webhook_deliveries')
    await knex.schema.dropTable('webhook_messages')
    await unwatchTable(knex, 'webhooks')
    await knex.schema.dropTable('webhooks')
  },
})
