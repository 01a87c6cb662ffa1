/**
 * The waiters of this process for named locks: a lock adapter's `acquire` waits here between two
 * tries, and its `release` wakes the waiters of that name at once rather than at their next try.
 */
export class LockWaiters {
  private readonly waiters = new Map<string, Set<() => void>>()

  /** Resolves on `wake(name)`, once `ms` passed, or when `signal` aborts, whichever comes first. */
  wait(name: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wakers = this.waiters.get(name) ?? new Set()
      this.waiters.set(name, wakers)
      const done = (): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', done)
        wakers.delete(done)
        if (wakers.size === 0) this.waiters.delete(name)
        resolve()
      }
      const timer = setTimeout(done, ms)
      signal.addEventListener('abort', done)
      wakers.add(done)
    })
  }

  /** Wakes every waiter of `name`. */
  wake(name: string): void {
    for (const wake of [...(this.waiters.get(name) ?? [])]) wake()
  }
}
