import type Database from 'better-sqlite3'
import { NONCE_COUNT_WINDOW, type NonceCounterPort } from '../ports/nonce-counter.port.js'
import type { SqliteStateSql } from './state-sql.js'

/** Bits of the window: bit k says count `top - k` was used. */
const WINDOW_MASK = (1n << BigInt(NONCE_COUNT_WINDOW)) - 1n

interface Window {
  top: bigint
  seen: bigint
}

/**
 * Nonce counts in SQLite's state file (a row per nonce: SQLITE_TABLES says why) (`state: database`, the default): every process on the
 * machine sees them; each claim is a read and a write in one `BEGIN IMMEDIATE` transaction,
 * so two processes never both accept a count.
 */
export class SqliteNonceCounter implements NonceCounterPort {
  readonly scope = 'installation'
  /** The claim as one transaction, made on first use (the file opens then). */
  private claimOnce: Database.Transaction<(nonce: string, nc: number, expiresAt: number) => boolean> | undefined

  constructor(private readonly sql: SqliteStateSql) {}

  advance(nonce: string, nc: number, ttlSeconds: number): Promise<boolean> {
    try {
      const claimed = (this.claimOnce ??= this.prepare()).immediate(
        nonce,
        nc,
        Date.now() + Math.max(1, Math.ceil(ttlSeconds)) * 1000,
      )
      return Promise.resolve(claimed)
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)))
    }
  }

  /** Reads the nonce's window and writes it back with the count claimed, in `BEGIN IMMEDIATE`: no other process writes between. */
  private prepare(): Database.Transaction<(nonce: string, nc: number, expiresAt: number) => boolean> {
    const db = this.sql.open()
    const read = db.prepare('select top, seen from nonce_windows where nonce = ?').safeIntegers(true)
    const write = db.prepare(
      `insert into nonce_windows (nonce, top, seen, expires_at) values (?, ?, ?, ?)
       on conflict (nonce) do update set top = excluded.top, seen = excluded.seen, expires_at = excluded.expires_at`,
    )
    return db.transaction((nonce: string, nc: number, expiresAt: number): boolean => {
      const window = (read.get(nonce) as Window | undefined) ?? { top: 0n, seen: 0n }
      const next = claim(window, BigInt(nc))
      if (!next) return false
      write.run(nonce, next.top, BigInt.asIntN(64, next.seen), expiresAt)
      return true
    })
  }

  /** Deletes the windows of expired nonces: one row per live nonce, so a scan. */
  async sweep(now = Date.now()): Promise<void> {
    await this.sql.rows('delete from nonce_windows where expires_at < ?', [now])
  }
}

/** The window once `nc` is claimed in it, or null when it was used or lies below the window. */
function claim({ top, seen }: Window, nc: bigint): Window | null {
  const used = BigInt.asUintN(64, seen)
  if (nc > top) {
    const shift = nc - top
    return { top: nc, seen: shift >= BigInt(NONCE_COUNT_WINDOW) ? 1n : ((used << shift) | 1n) & WINDOW_MASK }
  }
  const below = top - nc
  if (below >= BigInt(NONCE_COUNT_WINDOW) || (used >> below) & 1n) return null
  return { top, seen: used | (1n << below) }
}
