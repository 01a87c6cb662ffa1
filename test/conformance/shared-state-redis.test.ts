import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { SUBSCRIPTIONS } from '../../plugins/state-redis/redis-connection.js'
import { RedisLocks } from '../../plugins/state-redis/redis-locks.js'
import { RedisNonceCounter } from '../../plugins/state-redis/redis-nonce-counter.js'
import { waitFor } from '../helpers/wait.js'
import { sharedStateConformance } from './shared-state.conformance.js'

const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL

/** Two "processes" (each its own pair of connections) under one random prefix, deleted afterwards. */
sharedStateConformance(
  'state-redis (MEDIACTL_TEST_REDIS_URL)',
  'installation',
  async () => {
    const prefix = `mediactl-test-${randomBytes(4).toString('hex')}:`
    const connections: Redis[] = []
    const subscriberIds: string[] = []
    const process = async (): Promise<{ counter: RedisNonceCounter; locks: RedisLocks; quit(): Promise<void> }> => {
      const redis = new Redis(REDIS_URL!)
      const subscriber = new Redis(REDIS_URL!, SUBSCRIPTIONS)
      connections.push(redis, subscriber)
      subscriberIds.push(String(await subscriber.client('ID')))
      const locks = new RedisLocks(redis, subscriber, prefix)
      locks.open((error) => {
        throw error
      })
      return {
        counter: new RedisNonceCounter(redis, prefix),
        locks,
        quit: async () => {
          await subscriber.quit()
          await redis.quit()
        },
      }
    }
    const [a, b] = [await process(), await process()]
    // Both hear the lock channels before the suite asks for anything.
    await waitFor(
      async () => {
        const clients = String(await connections[0]!.client('LIST', 'ID', ...subscriberIds))
        return clients.split('\n').filter((line) => / psub=1 /.test(line)).length === 2
      },
      { message: 'the subscriptions' },
    )
    return {
      counters: [a.counter, b.counter],
      locks: [a.locks, b.locks],
      // Its connections quit: its lock is renewed no more, as a killed process's.
      mortalLocks: async () => {
        const mortal = await process()
        return { locks: mortal.locks, die: () => mortal.quit() }
      },
      close: async () => {
        const keys = await connections[0]!.keys(`${prefix}*`)
        if (keys.length) await connections[0]!.del(...keys)
        await a.quit()
        await b.quit()
      },
    }
  },
  { skip: !REDIS_URL },
)
