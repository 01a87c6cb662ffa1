import { NONCE_COUNT_WINDOW, type NonceCounterPort } from '../ports/nonce-counter.port.js'
import type { StateSql } from './state-sql.js'

/**
 * One statement: the count is claimed once (the primary key), unless it lies a window or more
 * below the highest claimed for the nonce. Two processes claiming the same count at once: the
 * key lets one in.
 */
const ADVANCE = `with prior as (select coalesce(max(nc), 0) as top from kernel_nonce_counts where nonce = ?)
  insert into kernel_nonce_counts (nonce, nc, expires_at)
  select ?, ?, ? from prior where ? > prior.top - ?
  on conflict do nothing
  returning nc`

const SWEEP = 'delete from kernel_nonce_counts where expires_at < ?'

/**
 * Nonce counts in the database (`state: database`, the default): every process of every
 * machine that shares the database sees them, at the cost of one statement per authenticated
 * request on a connection of their own (state-sql.ts).
 */
export class DatabaseNonceCounter implements NonceCounterPort {
  readonly scope = 'installation'

  constructor(private readonly sql: StateSql) {}

  async advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean> {
    const expiresAt = Date.now() + Math.max(1, Math.ceil(ttlSeconds)) * 1000
    const rows = await this.sql.rows(ADVANCE, [nonce, nonce, nc, expiresAt, nc, NONCE_COUNT_WINDOW])
    return rows.length === 1
  }

  /** Deletes the counts of expired nonces (each process now and then; any of them may). */
  async sweep(now = Date.now()): Promise<void> {
    await this.sql.rows(SWEEP, [now])
  }
}
