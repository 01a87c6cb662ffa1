import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import { type AcquireOptions, type LockLease, LockWaiters, type LocksPort } from '../../src/kernel/index.js'

// Only the holder (its token) may renew or release; a lock that expired and was taken by
// another holder is left alone.
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

/** How often a waiter tries again when no release message came. */
const RETRY_MS = 200

/**
 * Locks in Redis: `SET key token NX PX ttl`, renewed every third of the ttl while held.
 * Waiters publish a release request that every process hears (pub/sub on a second
 * connection) and the holder's `onReleaseRequested` runs; a release publishes too, so a
 * waiter takes the lock at once instead of at its next retry.
 */
export class RedisLocks implements LocksPort {
  readonly scope = 'installation'
  /** `onReleaseRequested` of the locks held by this process, by full key. */
  private readonly held = new Map<string, () => void>()
  /** Waiters of this process to wake when a lock is released, by full key. */
  private readonly waiters = new LockWaiters()

  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
  ) {}

  /**
   * Subscribes to the release channels, now and again each time the subscriber connection
   * is back (it is opened with SUBSCRIPTIONS: no resubscription of ioredis's own); call once.
   * Not awaited at boot (Redis may come up later): until the subscription is live, waiters
   * still retry every RETRY_MS.
   */
  open(onError: (error: Error) => void): void {
    this.subscriber.on('pmessage', (_pattern: string, channel: string, key: string) => {
      if (channel === this.channel('request')) this.held.get(key)?.()
      if (channel === this.channel('released')) this.waiters.wake(key)
    })
    const subscribe = (): void => void this.subscriber.psubscribe(`${this.prefix}lock-*`).catch(onError)
    this.subscriber.on('ready', subscribe)
    if (this.subscriber.status === 'ready') subscribe()
  }

  private channel(kind: 'request' | 'released'): string {
    return `${this.prefix}lock-${kind}`
  }

  async acquire(key: string, options: AcquireOptions): Promise<LockLease | null> {
    const fullKey = `${this.prefix}lock:${key}`
    const ttl = options.ttlMs ?? 30_000
    const token = randomBytes(12).toString('hex')
    for (let asked = false; !options.signal.aborted;) {
      if ((await this.redis.set(fullKey, token, 'PX', ttl, 'NX')) === 'OK')
        return this.lease(fullKey, token, ttl, options)
      if (!asked) {
        await this.redis.publish(this.channel('request'), fullKey)
        asked = true
      }
      await this.waiters.wait(fullKey, RETRY_MS, options.signal)
    }
    return null
  }

  private lease(fullKey: string, token: string, ttl: number, options: AcquireOptions): LockLease {
    this.held.set(fullKey, options.onReleaseRequested ?? (() => undefined))
    const renewal = setInterval(() => {
      this.redis.eval(RENEW, 1, fullKey, token, ttl).catch(() => undefined)
    }, ttl / 3)
    renewal.unref()
    let released = false
    return {
      release: async () => {
        if (released) return
        released = true
        clearInterval(renewal)
        this.held.delete(fullKey)
        await this.redis.eval(RELEASE, 1, fullKey, token)
        await this.redis.publish(this.channel('released'), fullKey)
      },
    }
  }
}
