import { randomBytes } from 'node:crypto'
import type { AcquireOptions, LockLease, LocksPort } from '../ports/locks.port.js'
import type { StateSql } from './state-sql.js'
import { LockWaiters } from './lock-waiters.js'

/** Takes a free or expired lock in one statement: the holder it answers is the caller's token, or nothing. */
const TAKE = `insert into kernel_locks (name, holder, expires_at, release_requested) values (?, ?, ?, 0)
  on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at, release_requested = 0
  where kernel_locks.expires_at < ?
  returning holder`
const ASK = 'update kernel_locks set release_requested = 1 where name = ? and holder <> ?'
const RENEW = 'update kernel_locks set expires_at = ? where name = ? and holder = ?'
const RELEASE = 'delete from kernel_locks where name = ? and holder = ?'
/** The locks of this process (its tokens share a prefix) that another asked for. */
const ASKED = 'select name, holder from kernel_locks where holder like ? and release_requested = 1'
const SWEEP = 'delete from kernel_locks where expires_at < ?'

/** How often a waiter tries again, and a holding process looks for release requests. */
const POLL_MS = 200

interface Held {
  token: string
  renewal: NodeJS.Timeout
  onReleaseRequested: () => void
  asked: boolean
}

/**
 * Locks in the database (`state: database`, the default): a row per lock, taken when free or
 * expired, renewed every third of its ttl while held, so a crashed holder's lock frees itself.
 * A waiter marks the row; the holding process, which looks for marks every POLL_MS while it
 * holds anything, calls the holder's `onReleaseRequested`. Waiters in this process are woken at
 * once by a release here; others see it at their next try (POLL_MS).
 */
export class DatabaseLocks implements LocksPort {
  readonly scope = 'installation'
  /** Every token of this process starts with it. */
  private readonly prefix = randomBytes(8).toString('hex')
  private sequence = 0
  private readonly held = new Map<string, Held>()
  private readonly waiters = new LockWaiters()
  private watcher: NodeJS.Timeout | undefined

  constructor(private readonly sql: StateSql) {}

  async acquire(key: string, options: AcquireOptions): Promise<LockLease | null> {
    const ttl = options.ttlMs ?? 30_000
    const token = `${this.prefix}:${++this.sequence}`
    for (let asked = false; !options.signal.aborted;) {
      const now = Date.now()
      const rows = await this.sql.rows<{ holder: string }>(TAKE, [key, token, now + ttl, now])
      if (rows[0]?.holder === token) return this.lease(key, token, ttl, options)
      if (!asked) {
        asked = true
        const local = this.held.get(key)
        if (local) this.ask(local)
        else await this.sql.rows(ASK, [key, token])
      }
      await this.waiters.wait(key, POLL_MS, options.signal)
    }
    return null
  }

  private ask(held: Held): void {
    if (held.asked) return
    held.asked = true
    held.onReleaseRequested()
  }

  private lease(key: string, token: string, ttl: number, options: AcquireOptions): LockLease {
    const renewal = setInterval(() => {
      this.sql.rows(RENEW, [Date.now() + ttl, key, token]).catch(() => undefined)
    }, ttl / 3)
    renewal.unref()
    const held: Held = {
      token,
      renewal,
      onReleaseRequested: options.onReleaseRequested ?? (() => undefined),
      asked: false,
    }
    this.held.set(key, held)
    this.watch()
    let released = false
    return {
      release: async () => {
        if (released) return
        released = true
        clearInterval(renewal)
        this.held.delete(key)
        if (this.held.size === 0) this.unwatch()
        try {
          await this.sql.rows(RELEASE, [key, token])
        } finally {
          this.waiters.wake(key)
        }
      },
    }
  }

  /** While this process holds locks: looks for the release requests of other processes. */
  private watch(): void {
    if (this.watcher) return
    this.watcher = setInterval(() => {
      this.sql.rows<{ name: string; holder: string }>(ASKED, [`${this.prefix}:%`]).then(
        (rows) => {
          for (const row of rows) {
            const held = this.held.get(row.name)
            if (held?.token === row.holder) this.ask(held)
          }
        },
        () => undefined, // the database is away: the next look tells
      )
    }, POLL_MS)
    this.watcher.unref()
  }

  private unwatch(): void {
    clearInterval(this.watcher)
    this.watcher = undefined
  }

  /** Deletes expired locks nobody took again. */
  async sweep(now = Date.now()): Promise<void> {
    await this.sql.rows(SWEEP, [now])
  }

  /** Stops renewing and watching (shutdown): what is still held expires after its ttl. */
  close(): void {
    this.unwatch()
    for (const held of this.held.values()) clearInterval(held.renewal)
  }
}
