import { definePlugin } from '../../src/kernel/index.js'
import { BullmqQueue } from './bullmq-queue.js'
import { queueBullmqConfigSchema } from './queue-bullmq.config.js'

export {
  BullmqQueue,
  JobQueueError,
  DEFAULT_MAX_ATTEMPTS,
  MAX_PAYLOAD_BYTES,
  type BullmqQueueOptions,
} from './bullmq-queue.js'

/**
 * The Redis queue backend (BullMQ): jobs in Redis, run by `mediactl worker` processes on any
 * machine (and by `mediactl serve` too with `consume_in_serve`). For scale-out: serving
 * processes stay stateless and the encoding scales with the workers.
 */
export default definePlugin({
  name: 'queue-bullmq',
  config: queueBullmqConfigSchema,
  register(ctx) {
    const url = ctx.config.url || ctx.kernelConfig.redis_url
    if (!url) {
      throw new Error('queue-bullmq needs a Redis URL: set redis_url (MEDIACTL_REDIS_URL) or queue-bullmq.url')
    }
    const queue = new BullmqQueue({
      url,
      prefix: ctx.config.prefix,
      queue: ctx.config.queue,
      log: ctx.log,
      consumesInServe: ctx.config.consume_in_serve,
      pollIntervalMs: ctx.config.poll_interval * 1000,
      leaseMs: ctx.config.lease * 1000,
      stalledIntervalMs: ctx.config.stalled_interval * 1000,
      keepSucceededMs: ctx.config.keep_succeeded * 1000,
    })
    ctx.provide('queue', queue)
    ctx.onStop(() => queue.close())
  },
})
