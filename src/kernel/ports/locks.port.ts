import type { StateScope } from './nonce-counter.port.js'

/** A lock held: release it when done (it also expires on its own if the holder dies). */
export interface LockLease {
  /** Releases the lock (once; later calls do nothing) and lets a waiter take it at once. */
  release(): Promise<void>
}

/** Options of `LocksPort.acquire`. */
export interface AcquireOptions {
  /**
   * Milliseconds the lock outlives a holder that stopped renewing it (a crashed process):
   * the backend renews it while held. Default 30000.
   */
  ttlMs?: number
  /** Stops waiting: `acquire` then resolves null. Required: nobody waits forever. */
  signal: AbortSignal
  /**
   * Called on the holder when another process (or request) waits for the lock, so a holder
   * that can finish early (tus: a stale request) does, and releases.
   */
  onReleaseRequested?: () => void
}

/**
 * Named exclusive locks (tus uploads, whichever `serve` process a request reaches). The
 * kernel keeps them in the database by default (`state: database`), in one process's memory
 * with `state: memory`; `state-redis` keeps them in Redis.
 */
export interface LocksPort {
  /** Who the lock excludes: the requests of this process only, or those of every process. */
  readonly scope: StateScope
  /**
   * Takes the lock `key` (any string; the backend prefixes it), waiting while another holder
   * has it and asking that holder to release (`onReleaseRequested`). Resolves with the lease,
   * or null when `signal` aborted first.
   */
  acquire(key: string, options: AcquireOptions): Promise<LockLease | null>
}
