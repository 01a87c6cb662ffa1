/**
 * Remembers, per Digest nonce, the highest nonce count (`nc`) seen, so a replayed request
 * is refused. The kernel's in-memory store serves one process; a shared backend (Redis)
 * is needed when several serving processes share clients.
 */
export interface NonceCounterPort {
  /**
   * Records `nc` for `nonce` if it is greater than every count seen for that nonce and
   * answers true; answers false (a replay) otherwise. `ttlSeconds` is how long the nonce
   * can still be used, after which its record may be forgotten.
   */
  advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean>
}
