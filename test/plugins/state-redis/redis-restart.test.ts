import type { ChildProcess } from 'node:child_process'
import type { Redis } from 'ioredis'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { COMMANDS, SUBSCRIPTIONS, closeRedis, openRedis } from '../../../plugins/state-redis/redis-connection.js'
import { RedisLocks } from '../../../plugins/state-redis/redis-locks.js'
import { recordingLogger } from '../../helpers/log.js'
import { freePort, startRedis, stopRedis } from '../../helpers/redis-server.js'
import { startTcpProxy } from '../../helpers/tcp-proxy.js'
import { waitFor } from '../../helpers/wait.js'

/** The lock channels across a Redis restart, on a redis-server of the test's own. */
describe('state-redis locks when Redis restarts', () => {
  let port: number
  let server: ChildProcess | undefined
  let redis: Redis
  let subscriber: Redis
  let locks: RedisLocks
  const errors: Error[] = []
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason)

  /** Connections of the test's Redis with a pattern subscription. */
  const subscriberCount = async (): Promise<number> =>
    String(await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
      .split('\n')
      .filter((line) => / psub=1 /.test(line)).length
  const subscribed = async (): Promise<boolean> => (await subscriberCount()) === 1

  beforeEach(async () => {
    port = await freePort()
    server = await startRedis(port)
    const url = `redis://127.0.0.1:${port}`
    const { logger } = recordingLogger()
    redis = openRedis(url, logger, 'commands', COMMANDS)
    subscriber = openRedis(url, logger, 'subscriber', SUBSCRIPTIONS)
    locks = new RedisLocks(redis, subscriber, 'restart-test:')
    errors.length = 0
    unhandled.length = 0
    process.on('unhandledRejection', onUnhandled)
    locks.open((error) => void errors.push(error))
    await waitFor(subscribed, { message: 'the first subscription' })
  }, 30_000)
  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled)
    await closeRedis(subscriber)
    await closeRedis(redis)
    await stopRedis(server)
  })
  afterAll(() => process.off('unhandledRejection', onUnhandled))

  it('subscribes again once Redis is back: a release request reaches the holder', async () => {
    await stopRedis(server)
    server = await startRedis(port)
    await waitFor(subscribed, { timeout: 20_000, message: 'the subscription after the restart' })

    let asked = false
    const lease = await locks.acquire('k', {
      signal: new AbortController().signal,
      onReleaseRequested: () => (asked = true),
    })
    const waiter = new AbortController()
    const second = locks.acquire('k', { signal: waiter.signal })
    await waitFor(() => asked, { message: "the holder's onReleaseRequested" })
    await lease!.release()
    expect(await second).not.toBeNull()
    expect(errors).toEqual([])
  }, 40_000)

  it('a connection closed just as it comes back: the failed subscription is reported, nothing unhandled', async () => {
    // Through a proxy that can withhold Redis's answer to the subscription made at `ready`.
    const proxy = await startTcpProxy(port)
    const { logger } = recordingLogger()
    const late = openRedis(`redis://127.0.0.1:${proxy.port}`, logger, 'subscriber', SUBSCRIPTIONS)
    const lateErrors: Error[] = []
    try {
      new RedisLocks(redis, late, 'restart-test:').open((error) => void lateErrors.push(error))
      await waitFor(async () => (await subscriberCount()) === 2, { message: 'the second subscription' })
      // The shutdown of a process while Redis comes back: closed on `ready`, the subscription unanswered.
      // Listened for before the restart: the connection may be back before startRedis returns.
      const closedOnReady = new Promise<void>((resolve) =>
        late.once('ready', () => {
          proxy.holdReplies()
          late.disconnect()
          resolve()
        }),
      )
      await stopRedis(server)
      server = await startRedis(port)
      await closedOnReady
      await waitFor(() => lateErrors.length > 0, { message: 'the failed subscription reported to open’s onError' })
      expect(lateErrors[0]!.message).toMatch(/Connection is closed/)
      // Node reports an unhandled rejection once the microtasks of the current task are done.
      await new Promise((resolve) => setImmediate(resolve))
      expect(unhandled).toEqual([])
    } finally {
      late.disconnect()
      await proxy.close()
    }
  }, 40_000)
})
