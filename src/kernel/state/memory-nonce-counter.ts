import { NONCE_COUNT_WINDOW, type NonceCounterPort } from '../ports/nonce-counter.port.js'

interface Entry {
  max: number
  /** Counts used within the window below `max`. */
  seen: Set<number>
  expires: number
}

/** Nonce counts in this process's memory (`state: memory`), forgotten when the nonce expires. */
export class MemoryNonceCounter implements NonceCounterPort {
  readonly scope = 'process'
  private readonly counts = new Map<string, Entry>()
  private readonly sweeper: NodeJS.Timeout

  constructor(sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs)
    this.sweeper.unref()
  }

  advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean> {
    let entry = this.counts.get(nonce)
    if (!entry) {
      entry = { max: 0, seen: new Set(), expires: 0 }
      this.counts.set(nonce, entry)
    }
    if (nc <= entry.max - NONCE_COUNT_WINDOW || entry.seen.has(nc)) return Promise.resolve(false)
    entry.seen.add(nc)
    entry.expires = Date.now() + ttlSeconds * 1000
    if (nc > entry.max) {
      entry.max = nc
      for (const old of entry.seen) if (old <= nc - NONCE_COUNT_WINDOW) entry.seen.delete(old)
    }
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
