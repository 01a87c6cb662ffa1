import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SUBSCRIPTIONS } from '../../../plugins/state-redis/redis-connection.js'
import { RedisLocks } from '../../../plugins/state-redis/redis-locks.js'
import { waitFor } from '../../helpers/wait.js'

const REDIS_URL = process.env.MEDIACTL_TEST_REDIS_URL

/** Two "processes": each its own pair of connections, one prefix. */
describe.skipIf(!REDIS_URL)('state-redis locks (MEDIACTL_TEST_REDIS_URL)', () => {
  const prefix = `mediactl-test-${randomBytes(4).toString('hex')}:`
  const connections: Redis[] = []
  let one: RedisLocks
  let two: RedisLocks

  const subscriberIds: string[] = []
  const locks = async (): Promise<RedisLocks> => {
    const redis = new Redis(REDIS_URL!)
    const subscriber = new Redis(REDIS_URL!, SUBSCRIPTIONS)
    connections.push(redis, subscriber)
    subscriberIds.push(String(await subscriber.client('ID')))
    const made = new RedisLocks(redis, subscriber, prefix)
    made.open((error) => {
      throw error
    })
    return made
  }
  const forever = (): AbortSignal => new AbortController().signal

  beforeAll(async () => {
    one = await locks()
    two = await locks()
    // Both processes hear the lock channels (their pattern subscriptions are in place).
    await waitFor(
      async () => {
        const clients = String(await connections[0]!.client('LIST', 'ID', ...subscriberIds))
        return clients.split('\n').filter((line) => / psub=1 /.test(line)).length === 2
      },
      { message: 'the subscriptions' },
    )
  })
  afterAll(async () => {
    const keys = await connections[0]!.keys(`${prefix}*`)
    if (keys.length) await connections[0]!.del(...keys)
    await Promise.all(connections.map((c) => c.quit()))
  })

  it('is exclusive across processes; a release hands it over at once', async () => {
    let asked = (): void => undefined
    const waited = new Promise<void>((resolve) => (asked = resolve))
    const first = await one.acquire('upload-a', { signal: forever(), onReleaseRequested: () => asked() })
    expect(first).not.toBeNull()
    const order: string[] = []
    const second = two.acquire('upload-a', { signal: forever() }).then((lease) => {
      order.push('second took it')
      return lease
    })
    // The second tried, found it held and asked for it (it waits now): it did not take it.
    await waited
    expect(order).toEqual([])
    order.push('first releases')
    await first!.release()
    const lease = await second
    expect(order).toEqual(['first releases', 'second took it'])
    await lease!.release()
  })

  it("asks the holder to release: the other process's onReleaseRequested runs", async () => {
    let asked = 0
    const held = await one.acquire('upload-b', { signal: forever(), onReleaseRequested: () => (asked += 1) })
    const waiting = two.acquire('upload-b', { signal: forever() })
    await waitFor(() => asked > 0, { message: 'the release request' })
    expect(asked).toBe(1)
    await held!.release()
    await (await waiting)!.release()
  })

  it('stops waiting when the signal aborts (null), and the holder keeps the lock', async () => {
    let asked = (): void => undefined
    const waited = new Promise<void>((resolve) => (asked = resolve))
    const held = await one.acquire('upload-c', { signal: forever(), onReleaseRequested: () => asked() })
    const controller = new AbortController()
    const waiting = two.acquire('upload-c', { signal: controller.signal })
    await waited // it waits for the lock
    controller.abort()
    expect(await waiting).toBeNull()
    expect(await two.acquire('upload-c', { signal: AbortSignal.timeout(300) })).toBeNull()
    await held!.release()
  })

  it('a holder that stops renewing (a crashed process) loses the lock after its ttl', async () => {
    // Taken with SET NX directly: no renewal, like a process that died holding it.
    await connections[0]!.set(`${prefix}lock:upload-d`, 'dead-process', 'PX', 400, 'NX')
    const started = Date.now()
    const lease = await two.acquire('upload-d', { signal: AbortSignal.timeout(5000) })
    expect(lease).not.toBeNull()
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
    await lease!.release()
  })

  it('keeps a held lock alive past its ttl by renewing it; releasing twice is harmless', async () => {
    const held = await one.acquire('upload-e', { ttlMs: 300, signal: forever() })
    // Past twice its ttl (the time is what is tested), the key still lives: renewed, not expired.
    const acquiredAt = Date.now()
    await waitFor(() => Date.now() - acquiredAt > 700, { interval: 50, message: 'two ttls to pass' })
    expect(await connections[0]!.exists(`${prefix}lock:upload-e`)).toBe(1)
    expect(await two.acquire('upload-e', { ttlMs: 300, signal: AbortSignal.timeout(200) })).toBeNull()
    await held!.release()
    await held!.release()
    const next = await two.acquire('upload-e', { ttlMs: 300, signal: AbortSignal.timeout(1000) })
    expect(next).not.toBeNull()
    await next!.release()
  })
})
