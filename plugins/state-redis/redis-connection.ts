import { Redis, type RedisOptions } from 'ioredis'
import type { Logger } from '../../src/kernel/index.js'

/** Seconds to open a connection, and for one command to answer: a dead Redis fails requests (503), never hangs them. */
const CONNECT_TIMEOUT_MS = 5000
const COMMAND_TIMEOUT_MS = 5000

/**
 * A Redis connection that logs one line when it goes down and one when it is back, not one
 * per reconnection attempt (ioredis retries every two seconds, forever, with backoff).
 */
export function openRedis(url: string, log: Logger, role: string, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    ...options,
  })
  let down = false
  redis.on('error', (error: Error) => {
    if (down) return
    down = true
    log.warn({ err: error.message || error.name, connection: role }, 'redis unreachable; retrying')
  })
  redis.on('ready', () => {
    if (!down) return
    down = false
    log.info({ connection: role }, 'redis reachable again')
  })
  return redis
}

/** Options of a connection that runs plain commands (not subscriptions): each one bounded in time. */
export const COMMANDS: RedisOptions = { commandTimeout: COMMAND_TIMEOUT_MS }

/**
 * Options of a subscribing connection. ioredis resubscribes by itself after a reconnection
 * with a promise nobody holds: a connection closed just then (a shutdown while Redis comes
 * back) rejects it unhandled. Its owner subscribes again at each `ready` instead
 * (`RedisLocks.open`), where the error is caught.
 */
export const SUBSCRIPTIONS: RedisOptions = { autoResubscribe: false }

/**
 * Closes a connection without waiting on a dead server: `quit` queues behind the reconnection
 * while Redis is down, which would hold a shutdown until its time limit.
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect())
  else redis.disconnect()
}
