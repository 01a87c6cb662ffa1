import { Redis } from 'ioredis'
import { z } from 'zod'
import { definePlugin } from '../../src/kernel/index.js'
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
 * protection across processes). Enable it whenever more than one `serve` shares clients.
 */
export default definePlugin({
  name: 'state-redis',
  config: configSchema,
  register(ctx) {
    const url = ctx.config.url || ctx.kernelConfig.redis_url
    if (!url) throw new Error('state-redis needs a Redis URL: set redis_url (MEDIACTL_REDIS_URL) or state-redis.url')
    const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true })
    redis.on('error', (error: Error) => ctx.log.warn({ err: error.message }, 'redis error'))
    ctx.provide('nonceCounter', new RedisNonceCounter(redis, ctx.config.prefix))
    ctx.onStop(async () => {
      await redis.quit()
    })
  },
})
