/** How far below the highest nonce count seen a count may still arrive (concurrent requests reorder). */
export const NONCE_COUNT_WINDOW = 64

/**
 * Who sees what a shared-state adapter records: only the process that holds it (`process`), or
 * every process of the installation, on this machine and others (`installation`). `serve`
 * refuses to run several HTTP processes on a `process` adapter: a request replayed against
 * another process would be accepted, an upload's lock would not be exclusive.
 */
export type StateScope = 'process' | 'installation'

/**
 * Remembers, per Digest nonce, which nonce counts (`nc`) were used, so a replayed request
 * is refused while concurrent requests that share a nonce may arrive out of order. The
 * kernel keeps them in the database by default (`state: database`), in one process's memory
 * with `state: memory`; `state-redis` keeps them in Redis.
 */
export interface NonceCounterPort {
  /** Who sees the counts recorded here. */
  readonly scope: StateScope
  /**
   * Records `nc` for `nonce` and answers true when it was never used with that nonce and
   * is not more than NONCE_COUNT_WINDOW below the highest count seen; answers false (a
   * replay, or too old to tell) otherwise. `ttlSeconds` is how long the nonce can still be
   * used, after which its record may be forgotten.
   */
  advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean>
}
