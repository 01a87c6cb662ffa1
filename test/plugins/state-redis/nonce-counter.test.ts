import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisNonceCounter } from '../../../plugins/state-redis/redis-nonce-counter.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { rawRequest } from '../../helpers/digest-client.js'

const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL

/** What only Redis does (its keys and their expiry), and the plugin in a serving process; the port's guarantees are in test/conformance. */
describe.skipIf(!REDIS_URL)('state-redis nonce counter (MEDIACTL_TEST_REDIS_URL)', () => {
  const prefix = `mediactl-test-${randomBytes(4).toString('hex')}:`
  let one: Redis
  let two: Redis

  beforeAll(() => {
    one = new Redis(REDIS_URL!)
    two = new Redis(REDIS_URL!)
  })
  afterAll(async () => {
    const keys = await one.keys(`${prefix}*`)
    if (keys.length) await one.del(...keys)
    await one.quit()
    await two.quit()
  })

  it('forgets a nonce when it expires', async () => {
    const a = new RedisNonceCounter(one, prefix)
    await a.advance('short', 5, 7)
    const ttl = await one.ttl(`${prefix}nc:short`)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(7)
  })

  describe('in a serving process', () => {
    let app: TestApp
    beforeAll(async () => {
      app = await startApp({
        config: {
          redis_url: REDIS_URL,
          plugins: ['root', 'platforms', 'identity', 'storage-fs', 'state-redis'],
          'state-redis': { prefix },
        },
      })
    })
    afterAll(async () => app?.close())

    it('rejects a replayed nonce count and records counts in Redis', async () => {
      await app.client.handshake()
      const authorization = app.client.authorization('GET', '/')
      const first = await rawRequest(`${app.url}/`, 'GET', { headers: { authorization } })
      expect(first.status).toBe(200)
      const replay = await rawRequest(`${app.url}/`, 'GET', { headers: { authorization } })
      expect(replay.status).toBe(401)
      expect((await one.keys(`${prefix}nc:*`)).length).toBeGreaterThan(0)
    })
  })
})
