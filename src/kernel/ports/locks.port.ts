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
 * Named exclusive locks shared by every process of the installation (tus uploads across
 * several `serve` processes). Optional: without a provider, users keep their in-process
 * locks, right for one serving process. Provided by `state-redis`.
 */
export interface LocksPort {
  /**
   * Takes the lock `key` (any string; the backend prefixes it), waiting while another holder
   * has it and asking that holder to release (`onReleaseRequested`). Resolves with the lease,
   * or null when `signal` aborted first.
   */
  acquire(key: string, options: AcquireOptions): Promise<LockLease | null>
}
