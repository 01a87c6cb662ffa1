import type { NonceCounterPort } from '../ports/nonce-counter.port.js'

/** Single-process nonce counts, forgotten when the nonce expires. */
export class MemoryNonceCounter implements NonceCounterPort {
  private readonly counts = new Map<string, { nc: number; expires: number }>()
  private readonly sweeper: NodeJS.Timeout

  constructor(sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs)
    this.sweeper.unref()
  }

  advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean> {
    const seen = this.counts.get(nonce)
    if (seen && nc <= seen.nc) return Promise.resolve(false)
    this.counts.set(nonce, { nc, expires: Date.now() + ttlSeconds * 1000 })
    return Promise.resolve(true)
  }

  private sweep(): void {
    const now = Date.now()
    for (const [nonce, entry] of this.counts) if (entry.expires < now) this.counts.delete(nonce)
  }

  close(): void {
    clearInterval(this.sweeper)
  }
}
