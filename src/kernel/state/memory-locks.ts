import type { AcquireOptions, LockLease, LocksPort } from '../ports/locks.port.js'

interface Held {
  onReleaseRequested: () => void
  /** Waiters to wake when it is released. */
  waiters: Set<() => void>
}

/**
 * Locks in this process's memory (`state: memory`): exclusive between the requests of one
 * process only. A waiter asks the holder to release once, then waits for the release.
 */
export class MemoryLocks implements LocksPort {
  readonly scope = 'process'
  private readonly held = new Map<string, Held>()

  async acquire(key: string, options: AcquireOptions): Promise<LockLease | null> {
    for (let asked = false; !options.signal.aborted;) {
      const holder = this.held.get(key)
      if (!holder) return this.lease(key, options)
      if (!asked) {
        asked = true
        holder.onReleaseRequested()
      }
      await new Promise<void>((resolve) => {
        const done = (): void => {
          holder.waiters.delete(done)
          options.signal.removeEventListener('abort', done)
          resolve()
        }
        holder.waiters.add(done)
        options.signal.addEventListener('abort', done)
      })
    }
    return null
  }

  private lease(key: string, options: AcquireOptions): LockLease {
    const held: Held = { onReleaseRequested: options.onReleaseRequested ?? (() => undefined), waiters: new Set() }
    this.held.set(key, held)
    let released = false
    return {
      release: () => {
        if (!released) {
          released = true
          this.held.delete(key)
          for (const wake of [...held.waiters]) wake()
        }
        return Promise.resolve()
      },
    }
  }
}
