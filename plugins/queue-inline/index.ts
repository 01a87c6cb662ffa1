import { definePlugin, warnMovedKeys } from '../../src/kernel/index.js'
import { InlineQueue } from './inline-queue.js'
import { MOVED_KEYS, queueInlineConfigSchema } from './queue-inline.config.js'

export { InlineQueue, type InlineQueueOptions } from './inline-queue.js'

/**
 * The default queue transport: the jobs (kept by the kernel in the `jobs` table) are found by
 * polling the database, by every `mediactl serve` that has it enabled and by `mediactl
 * worker` processes on the same database. Safe with several processes on PostgreSQL; on
 * SQLite, one machine.
 */
export default definePlugin({
  name: 'queue-inline',
  provides: ['queue'],
  config: queueInlineConfigSchema,
  register(ctx) {
    warnMovedKeys('queue-inline', ctx.config, MOVED_KEYS, ctx.log)
    ctx.provide(
      'queue',
      new InlineQueue({
        knex: ctx.em().getKnex(),
        log: ctx.log,
        pollIntervalMs: ctx.config.poll_interval * 1000,
        consumesInServe: ctx.config.consume_in_serve,
      }),
    )
  },
})
