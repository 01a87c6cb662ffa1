/**
 * The request handlers still running. A client that cuts its connection ends the response at
 * once, but its handler goes on (an upload removing what it began to store, a transaction
 * rolling back): shutdown waits for them before the plugins stop and the database closes,
 * and tests wait for them before looking at what a cut request left.
 */
export class InFlight {
  private running = 0
  private tracked = 0
  private waiters: (() => void)[] = []

  /** Handlers running now. */
  get count(): number {
    return this.running
  }

  /** Handlers started since the process began (a test knows its request reached one). */
  get started(): number {
    return this.tracked
  }

  /** Counts `work` until it settles. */
  track(work: Promise<unknown>): void {
    this.tracked++
    this.running++
    void work.finally(() => {
      this.running--
      if (this.running === 0) for (const wake of this.waiters.splice(0)) wake()
    })
  }

  /** Resolves true once no handler runs, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.running === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== wake)
        resolve(false)
      }, timeoutMs)
      const wake = (): void => {
        clearTimeout(timer)
        resolve(true)
      }
      this.waiters.push(wake)
    })
  }
}
