import { type EntityManager, type Logger, serviceKey, transaction } from '../../src/kernel/index.js'
import { IDS_PER_QUERY } from './resource.service.js'

/** What the counter needs: fresh EntityManagers, a logger, and the interval of its writes. */
export interface ViewCounterOptions {
  em: () => EntityManager
  log: Logger
  /** `resources.views_flush_ms`: 0 writes each view at once. */
  flushMs: number
}

/**
 * The plays of resources, counted in this process and written to `resources.views` in batches
 * (docs/decisions/0247-views-counted-per-process-written-each-second.md). One update per play notified every serving
 * process on PostgreSQL, so each play dropped every cached lookup that read `resources`, and on
 * SQLite took the single writer: a batch does both at most once per `flushMs`. The price: the
 * `views` shown lag by up to the interval, and a crash loses the views of the last one.
 */
export class ViewCounter {
  /** Views not written yet, by resource id. */
  private pending = new Map<number, number>()
  /** The write under way: flushes run one after the other, so a stop waits for the tick's. */
  private writing: Promise<void> | undefined
  /** Whether the last write failed: the warning is logged once per outage, not at each tick. */
  private failing = false
  private readonly timer: NodeJS.Timeout | undefined
  /** Stopped: a view counted by a request that outlived the stop is written at once, not left for a tick that never comes. */
  private stopped = false

  constructor(private readonly options: ViewCounterOptions) {
    if (options.flushMs > 0) {
      // A tick while a write is under way (a slow database) waits for the next one.
      this.timer = setInterval(() => void (this.writing ?? this.flush()), options.flushMs)
      // Never what keeps a process alive: stopping flushes (`stop`).
      this.timer.unref()
    }
  }

  /** How many views are counted and not written yet. */
  get unwritten(): number {
    let total = 0
    for (const count of this.pending.values()) total += count
    return total
  }

  /** Counts one view of a resource; with `flushMs` 0, writes it before resolving (and throws if it cannot). */
  async add(resourceId: number): Promise<void> {
    if (!this.timer || this.stopped) return this.write(new Map([[resourceId, 1]]))
    this.pending.set(resourceId, (this.pending.get(resourceId) ?? 0) + 1)
  }

  /**
   * Writes what was counted until now, after any write under way. Never throws: views that
   * could not be written stay counted for the next flush.
   */
  flush(): Promise<void> {
    const run = (this.writing ?? Promise.resolve()).then(() => this.writePending())
    this.writing = run
    void run.then(() => {
      if (this.writing === run) this.writing = undefined
    })
    return run
  }

  /** No more ticks; writes what is counted (the plugin's stop). */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.stopped = true
    await this.flush()
    const lost = this.unwritten
    if (lost > 0) this.options.log.error({ views: lost }, 'views not written at shutdown: they are lost')
  }

  /** Takes the pending views (a fresh map counts the next ones) and writes them; puts them back if that fails. */
  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return
    const taken = this.pending
    this.pending = new Map()
    try {
      await this.write(taken)
      if (this.failing) this.options.log.info('views are written again')
      this.failing = false
    } catch (error) {
      for (const [id, count] of taken) this.pending.set(id, (this.pending.get(id) ?? 0) + count)
      if (!this.failing) {
        this.options.log.warn({ err: error, views: this.unwritten }, 'views not written; kept for the next try')
      }
      this.failing = true
    }
  }

  /**
   * Few statements: one per distinct count (most resources are played once an interval) and
   * 500 ids, in one transaction (one notification on PostgreSQL, one write on SQLite's single
   * writer). A resource deleted meanwhile updates nothing.
   */
  private async write(counts: ReadonlyMap<number, number>): Promise<void> {
    const byCount = new Map<number, number[]>()
    for (const [id, count] of counts) {
      const ids = byCount.get(count)
      if (ids) ids.push(id)
      else byCount.set(count, [id])
    }
    const statements: [string, number[]][] = []
    for (const [count, ids] of byCount) {
      for (let start = 0; start < ids.length; start += IDS_PER_QUERY) {
        const slice = ids.slice(start, start + IDS_PER_QUERY)
        statements.push([
          `update resources set views = views + ? where id in (${slice.map(() => '?').join(', ')})`,
          [count, ...slice],
        ])
      }
    }
    const run = async (em: EntityManager) => {
      for (const [sql, params] of statements) await em.execute(sql, params)
    }
    // One statement needs no transaction around it (its begin and commit would be two more round trips).
    const em = this.options.em()
    await (statements.length === 1 ? run(em) : transaction(em, run))
  }
}

/** The counter of this process, for the player, which counts a view once per playback session. */
export const RESOURCE_VIEWS = serviceKey<ViewCounter>('resources.views')
