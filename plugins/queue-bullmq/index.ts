import { definePlugin, warnMovedKeys } from '../../src/kernel/index.js'
import { BullmqQueue } from './bullmq-queue.js'
import { MOVED_KEYS, queueBullmqConfigSchema } from './queue-bullmq.config.js'

export { BullmqQueue, type BullmqQueueOptions } from './bullmq-queue.js'

/**
 * The Redis transport (BullMQ): jobs (kept by the kernel in the database) are signalled
 * through Redis to `mediactl worker` processes on any machine (and to `mediactl serve` too
 * with `consume_in_serve`). For scale-out: serving processes stay stateless and the encoding
 * scales with the workers.
 */
export default definePlugin({
  name: 'queue-bullmq',
  provides: ['queue'],
  config: queueBullmqConfigSchema,
  register(ctx) {
    warnMovedKeys('queue-bullmq', ctx.config, MOVED_KEYS, ctx.log)
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
      lockMs: ctx.kernelConfig.jobs.lease * 1000,
      stalledIntervalMs: ctx.config.stalled_interval * 1000,
    })
    ctx.provide('queue', queue)
    ctx.ready('redis (queue-bullmq)', () => queue.check(), {
      seconds: ctx.kernelConfig.redis_connect_wait,
      setting: 'redis_connect_wait',
    })
    ctx.onStop(() => queue.close())
  },
})
