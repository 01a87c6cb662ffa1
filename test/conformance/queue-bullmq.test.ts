import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { describe } from 'vitest'
import { BullmqQueue } from '../../plugins/queue-bullmq/index.js'
import { createLogger } from '../../src/kernel/index.js'
import { queueConformance } from './queue.conformance.js'

const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL

/** Runs against the Redis of MEDIACTL_TEST_REDIS_URL, under a prefix of its own, removed afterwards. */
describe.skipIf(!REDIS_URL)('queue-bullmq (MEDIACTL_TEST_REDIS_URL)', () => {
  queueConformance('queue-bullmq', async () => {
    const prefix = `mediactl-test-${randomBytes(4).toString('hex')}`
    const lease = 1000
    const queues: BullmqQueue[] = []
    // Each queue has its own connections, as another process would.
    const make = (): BullmqQueue => {
      const queue = new BullmqQueue({
        url: REDIS_URL!,
        prefix,
        queue: 'jobs',
        log: createLogger('silent'),
        consumesInServe: false,
        pollIntervalMs: 50,
        leaseMs: lease,
        stalledIntervalMs: lease,
        keepSucceededMs: 3600_000,
      })
      queues.push(queue)
      return queue
    }
    return {
      queue: make(),
      leaseMs: lease,
      another: () => Promise.resolve(make()),
      async cleanup() {
        for (const queue of queues) await queue.close()
        const redis = new Redis(REDIS_URL!)
        const keys = await redis.keys(`${prefix}:*`)
        if (keys.length) await redis.del(...keys)
        await redis.quit()
      },
    }
  })
})
