import { databaseTarget, definePlugin } from '../../src/kernel/index.js'
import { InlineQueue } from './inline-queue.js'
import { JobEntity } from './job.entity.js'
import init from './migrations/20261205-queue-inline-jobs.js'
import { queueInlineConfigSchema } from './queue-inline.config.js'

export { InlineQueue, JobQueueError, DEFAULT_MAX_ATTEMPTS, MAX_PAYLOAD_BYTES } from './inline-queue.js'
export { type Job, JobEntity } from './job.entity.js'

/**
 * The default queue backend: jobs in the database (the `jobs` table), run by every
 * `mediactl serve` process that has it enabled, resumed after a restart or a crash. Safe
 * with several processes on PostgreSQL; on SQLite, one machine.
 */
export default definePlugin({
  name: 'queue-inline',
  config: queueInlineConfigSchema,
  entities: [JobEntity],
  migrations: [init],
  register(ctx) {
    ctx.provide(
      'queue',
      new InlineQueue({
        knex: ctx.em().getKnex(),
        dialect: databaseTarget(ctx.kernelConfig).dialect,
        log: ctx.log,
        pollIntervalMs: ctx.config.poll_interval * 1000,
        leaseMs: ctx.config.lease * 1000,
        keepSucceededMs: ctx.config.keep_succeeded * 1000,
        consumesInServe: ctx.config.consume_in_serve,
      }),
    )
  },
})
