import { NONCE_COUNT_WINDOW, type NonceCounterPort } from '../ports/nonce-counter.port.js'
import type { StateSql } from './state-sql.js'

/**
 * The claims of a batch in one statement: each count is claimed once (the primary key), unless
 * it lies a window or more below the highest claimed for its nonce. Two processes claiming the
 * same count at once: the key lets one in.
 */
const CLAIM = `with claims as (
    select * from unnest(?::text[], ?::bigint[], ?::bigint[]) as c(nonce, nc, expires_at)
  ), tops as (
    select c.*, coalesce((select max(k.nc) from kernel_nonce_counts k where k.nonce = c.nonce), 0) as top from claims c
  )
  insert into kernel_nonce_counts (nonce, nc, expires_at)
  select nonce, nc, expires_at from tops where nc > top - ?
  on conflict do nothing
  returning nonce, nc`

const SWEEP = 'delete from kernel_nonce_counts where expires_at < ?'

/** Most claims sent in one statement. */
const MAX_BATCH = 500

interface Claim {
  nonce: string
  nc: number
  expiresAt: number
  settle(claimed: boolean | Error): void
}

const keyOf = (nonce: string, nc: number | string): string => `${nonce} ${nc}`

/**
 * Nonce counts in PostgreSQL (`state: database`, the default): every process of every machine
 * that shares the database sees them (a row per count used), on connections of their own
 * (state-sql.ts). The claims that arrive in one turn of the event loop go in one statement:
 * under load a round trip serves many requests, which is where its cost per request would
 * otherwise show (docs/benchmarks.md); alone, a claim waits for no other.
 */
export class PostgresNonceCounter implements NonceCounterPort {
  readonly scope = 'installation'
  private pending: Claim[] = []
  private scheduled = false

  constructor(private readonly sql: StateSql) {}

  advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean> {
    const expiresAt = Date.now() + Math.max(1, Math.ceil(ttlSeconds)) * 1000
    return new Promise((resolve, reject) => {
      this.pending.push({
        nonce,
        nc,
        expiresAt,
        settle: (claimed) => (claimed instanceof Error ? reject(claimed) : resolve(claimed)),
      })
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => this.flush())
      }
    })
  }

  private flush(): void {
    this.scheduled = false
    while (this.pending.length) void this.send(this.pending.splice(0, MAX_BATCH))
  }

  /** One statement for `batch`; a count asked twice in it is claimed by the first asker only. */
  private async send(batch: Claim[]): Promise<void> {
    const first = new Map<string, Claim>()
    for (const claim of batch) {
      const key = keyOf(claim.nonce, claim.nc)
      if (first.has(key)) claim.settle(false)
      else first.set(key, claim)
    }
    const claims = [...first.values()]
    try {
      const rows = await this.sql.rows<{ nonce: string; nc: string }>(CLAIM, [
        claims.map((c) => c.nonce),
        claims.map((c) => c.nc),
        claims.map((c) => c.expiresAt),
        NONCE_COUNT_WINDOW,
      ])
      const claimed = new Set(rows.map((row) => keyOf(row.nonce, row.nc)))
      for (const claim of claims) claim.settle(claimed.has(keyOf(claim.nonce, claim.nc)))
    } catch (error) {
      for (const claim of claims) claim.settle(error instanceof Error ? error : new Error(String(error)))
    }
  }

  /** Deletes the counts of expired nonces (each process now and then; any of them may). */
  async sweep(now = Date.now()): Promise<void> {
    await this.sql.rows(SWEEP, [now])
  }
}
