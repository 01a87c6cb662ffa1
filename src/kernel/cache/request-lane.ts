import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * One request's statements, one after the other. Reads a handler starts together (several
 * `Promise.all` branches, each plugin's own reader) would otherwise each take a pool connection:
 * a request could hold three while the other requests wait for one. In a lane they run in the
 * order they were started, each taking the connection the one before released, so a request
 * holds at most one connection of the reader at any moment and the pool serves as many requests
 * as it has connections. The statements are not nested (one does not wait for another), so the
 * lane cannot wait on itself.
 */
class Lane {
  private tail: Promise<unknown> = Promise.resolve()

  through<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work)
    this.tail = next.catch(() => undefined)
    return next
  }
}

const current = new AsyncLocalStorage<Lane>()

/** The lanes of requests: the HTTP pipeline opens one per request, the PostgreSQL reader runs through it. */
export const requestLane = {
  /** Runs `work` (a request) in a lane of its own. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return current.run(new Lane(), work)
  },
  /** Runs one statement in the current request's lane, after the statements started before it; outside a request, now. */
  through<T>(work: () => Promise<T>): Promise<T> {
    const lane = current.getStore()
    return lane ? lane.through(work) : work()
  },
}
