import type { ChangeFeed } from './change-feed.js'

/** How a plugin's cache is declared (`ctx.cache`). */
export interface CacheOptions {
  /**
   * The tables its values are read from: a change to any of them (by any process) drops the
   * cache. Each is watched when it is a table of an enabled plugin's entities (the kernel puts
   * the trigger on it at `migrate`: watch-table.ts).
   */
  tables: readonly string[]
  /** Most entries kept; past it the cache starts over (default 10,000). */
  max?: number
}

/**
 * Lookups kept in this process until a table they come from changes (docs/operations.md,
 * Caches). While the change feed is not live (down, or not started: CLI commands, workers),
 * every lookup reads through.
 */
export class ProcessCache<V> {
  private readonly entries = new Map<string, V>()
  private readonly tables: ReadonlySet<string>
  private readonly max: number
  /** Moves at every drop: a value read before a drop is not kept after it. */
  private generation = 0

  constructor(
    private readonly feed: ChangeFeed,
    options: CacheOptions,
  ) {
    this.tables = new Set(options.tables)
    this.max = options.max ?? 10_000
    feed.subscribe((table) => {
      if (table === null || this.tables.has(table)) this.drop()
    })
  }

  /** The value under `key`, read with `load` unless kept. */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.feed.live) return load()
    if (this.entries.has(key)) return this.entries.get(key)!
    const generation = this.generation
    const value = await load()
    // A change notified while it was read may have come after the read: keep nothing then.
    if (generation === this.generation && this.feed.live) {
      if (this.entries.size >= this.max) this.entries.clear()
      this.entries.set(key, value)
    }
    return value
  }

  /**
   * The values under `keys`, those not kept read together with one call of `load` (which
   * answers a value for each key it was given: a list's lookups in one query).
   */
  async getMany<K extends string | number>(
    keys: readonly K[],
    load: (missing: K[]) => Promise<ReadonlyMap<K, V>>,
  ): Promise<Map<K, V>> {
    if (!this.feed.live) return new Map(await load([...keys]))
    const found = new Map<K, V>()
    const missing: K[] = []
    for (const key of keys) {
      const name = String(key)
      if (this.entries.has(name)) found.set(key, this.entries.get(name)!)
      else missing.push(key)
    }
    if (!missing.length) return found
    const generation = this.generation
    const loaded = await load(missing)
    const keep = generation === this.generation && this.feed.live
    for (const [key, value] of loaded) {
      found.set(key, value)
      if (!keep) continue
      if (this.entries.size >= this.max) this.entries.clear()
      this.entries.set(String(key), value)
    }
    return found
  }

  /** How many entries are kept now. */
  get size(): number {
    return this.entries.size
  }

  private drop(): void {
    this.generation += 1
    this.entries.clear()
  }
}
