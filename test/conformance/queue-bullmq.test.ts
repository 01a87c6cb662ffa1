import { randomBytes } from 'node:crypto'
import { describe } from 'vitest'
import { dropPrefix, queueConformance } from './queue.conformance.js'

const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL

/**
 * The jobs guarantees with the Redis transport, against the Redis of MEDIACTL_TEST_REDIS_URL
 * under a prefix of its own (its keys removed afterwards); the database is SQLite, or
 * PostgreSQL when MEDIACTL_TEST_DATABASE_URL is set.
 */
describe.skipIf(!REDIS_URL)('queue-bullmq (MEDIACTL_TEST_REDIS_URL)', () => {
  queueConformance('queue-bullmq', () => {
    const prefix = `mediactl-test-${randomBytes(4).toString('hex')}`
    return {
      plugin: 'queue-bullmq',
      config: { redis_url: REDIS_URL, 'queue-bullmq': { prefix, stalled_interval: 1 } },
      cleanup: () => dropPrefix(REDIS_URL!, prefix),
    }
  })
})
