import type { Redis } from 'ioredis'
import type { NonceCounterPort } from '../../src/kernel/index.js'

// Atomic compare-and-set: a replay (nc not above the stored one) never overwrites the count.
const ADVANCE = `
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1`

/** Nonce counts shared by every serving process through Redis, expiring with the nonce. */
export class RedisNonceCounter implements NonceCounterPort {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds))
    const result = await this.redis.eval(ADVANCE, 1, `${this.prefix}nc:${nonce}`, nc, ttl)
    return result === 1
  }
}
