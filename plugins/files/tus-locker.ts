import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/server'
import type { LockLease, LocksPort } from '../../src/kernel/index.js'

/** How long a tus request waits for the lock of its upload before answering an error. */
const ACQUIRE_TIMEOUT_MS = 30_000

/**
 * @tus/server's locker on the `locks` port: the lock of an upload is shared by every
 * serving process (its in-memory locker only covers one), and a request waiting for it asks
 * the holder, in whichever process, to finish (tus: a stale PATCH on a half-open connection).
 */
export class PortLocker implements Locker {
  constructor(private readonly locks: LocksPort) {}

  newLock(id: string): Lock {
    let lease: LockLease | null = null
    return {
      lock: async (stopSignal: AbortSignal, requestRelease: RequestRelease): Promise<void> => {
        const signal = AbortSignal.any([stopSignal, AbortSignal.timeout(ACQUIRE_TIMEOUT_MS)])
        lease = await this.locks.acquire(`tus:${id}`, {
          signal,
          onReleaseRequested: () => void requestRelease(),
        })
        if (!lease) throw ERRORS.ERR_LOCK_TIMEOUT
      },
      unlock: async (): Promise<void> => {
        await lease?.release()
        lease = null
      },
    }
  }
}
