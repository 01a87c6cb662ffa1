import type { Redis } from 'ioredis'
import { NONCE_COUNT_WINDOW, type NonceCounterPort } from '../../src/kernel/index.js'

// Atomic: refuse counts too far below the highest, then claim this count once (SET NX).
const ADVANCE = `
local max = tonumber(redis.call('GET', KEYS[1]) or '0')
local nc = tonumber(ARGV[1])
if nc <= max - tonumber(ARGV[3]) then return 0 end
if not redis.call('SET', KEYS[2], 1, 'NX', 'EX', ARGV[2]) then return 0 end
if nc > max then redis.call('SET', KEYS[1], nc, 'EX', ARGV[2]) end
return 1`

/** Nonce counts shared by every serving process through Redis, expiring with the nonce. */
export class RedisNonceCounter implements NonceCounterPort {
  readonly scope = 'installation'
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds))
    const keys = [`${this.prefix}nc:${nonce}`, `${this.prefix}nc:${nonce}:${nc}`]
    const result = await this.redis.eval(ADVANCE, 2, ...keys, nc, ttl, NONCE_COUNT_WINDOW)
    return result === 1
  }
}
