/** How far below the highest nonce count seen a count may still arrive (concurrent requests reorder). */
export const NONCE_COUNT_WINDOW = 64

/**
 * Remembers, per Digest nonce, which nonce counts (`nc`) were used, so a replayed request
 * is refused while concurrent requests that share a nonce may arrive out of order. The
 * kernel's in-memory store serves one process; a shared backend (Redis) is needed when
 * several serving processes share clients.
 */
export interface NonceCounterPort {
  /**
   * Records `nc` for `nonce` and answers true when it was never used with that nonce and
   * is not more than NONCE_COUNT_WINDOW below the highest count seen; answers false (a
   * replay, or too old to tell) otherwise. `ttlSeconds` is how long the nonce can still be
   * used, after which its record may be forgotten.
   */
  advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean>
}
