import { z } from 'zod'
import { definePlugin } from '../../src/kernel/index.js'
import { COMMANDS, SUBSCRIPTIONS, closeRedis, openRedis } from './redis-connection.js'
import { RedisLocks } from './redis-locks.js'
import { RedisNonceCounter } from './redis-nonce-counter.js'

const configSchema = z
  .object({
    /** Redis URL (redis://host:port/db); falls back to redis_url (MEDIACTL_REDIS_URL). */
    url: z.string().default(''),
    /** Prefix of every key mediactl writes. */
    prefix: z.string().default('mediactl:'),
  })
  .strict()

/**
 * Shared state in Redis for several serving processes: the Digest nonce counts (replay
 * protection across processes) and exclusive locks (tus uploads). Enable it whenever more
 * than one `serve` shares clients.
 */
export default definePlugin({
  name: 'state-redis',
  provides: ['nonceCounter', 'locks'],
  config: configSchema,
  register(ctx) {
    const url = ctx.config.url || ctx.kernelConfig.redis_url
    if (!url) throw new Error('state-redis needs a Redis URL: set redis_url (MEDIACTL_REDIS_URL) or state-redis.url')
    const redis = openRedis(url, ctx.log, 'commands', COMMANDS)
    // Pub/sub needs a connection of its own, without a command time limit (a subscription waits).
    const subscriber = openRedis(url, ctx.log, 'subscriber', SUBSCRIPTIONS)
    ctx.provide('nonceCounter', new RedisNonceCounter(redis, ctx.config.prefix))
    const locks = new RedisLocks(redis, subscriber, ctx.config.prefix)
    let stopping = false
    // A short command stops before the subscription is made: that is no failure worth a line.
    locks.open((error) => stopping || ctx.log.warn({ err: error.message }, 'redis lock channel not subscribed'))
    ctx.provide('locks', locks)
    ctx.ready('redis (state-redis)', () => redis.ping(), {
      seconds: ctx.kernelConfig.redis_connect_wait,
      setting: 'redis_connect_wait',
    })
    ctx.onStop(async () => {
      stopping = true
      await closeRedis(subscriber)
      await closeRedis(redis)
    })
  },
})
