import type { ChangeFeed } from '../db/change-feed.js'
import type { ReadSet } from '../db/read-tracking.js'

/** An answer as written: status, headers and body. */
export interface Answer {
  status: number
  headers: Readonly<Record<string, string | number>>
  body: Buffer
}

interface Entry extends Answer {
  /** The tables it was made from, each with its count of changes then. */
  sources: ReadonlyArray<readonly [string, number]>
  size: number
}

/** What a lookup or an attempt to keep came to, for the metrics. */
export type AnswerOutcome = 'hit' | 'miss' | 'uncacheable'

/** Bytes counted for an entry beyond its body (key, headers, bookkeeping). */
const ENTRY_OVERHEAD = 512

/** No one answer may take more than this share of the cache (a huge list would evict everything). */
const LARGEST_SHARE = 8

/**
 * Whole answers of cacheable routes (RouteOptions.cacheable), kept per caller in this serving
 * process until a table they were made from changes, whichever process changed it (the change
 * feed). An answer is kept only when everything it read is known and watched: the reader's
 * statements (their tables found by name among the database's relations) and the process
 * caches it consulted; read through the ORM, from a table without a trigger, or holding a
 * token that expires, it is made again each time. Nothing is kept while the feed is down.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0
  /** Moves at every change: an answer made while one was told is not kept. */
  private generation = 0
  /** Changes told per table since this process started. */
  private readonly changes = new Map<string, number>()
  /** The tables each statement reads, or null when one of them is not watched. */
  private tablesOf = new Map<string, readonly string[] | null>()
  private relations: ReadonlyMap<string, boolean> | undefined

  constructor(
    private readonly feed: ChangeFeed,
    private readonly maxBytes: number,
    private readonly count: (outcome: AnswerOutcome) => void = () => undefined,
  ) {
    feed.subscribe((table) => {
      this.generation += 1
      if (table === null) this.clear()
      else this.changes.set(table, (this.changes.get(table) ?? 0) + 1)
    })
  }

  /** Whether answers are kept now (PostgreSQL, the feed up, a size above 0). */
  get enabled(): boolean {
    return this.maxBytes > 0 && this.feed.live
  }

  /** A mark to pass to `keep`, taken before the answer's first read. */
  begin(): number {
    return this.generation
  }

  /** The answer kept under `key`, unless a table it was made from changed since. */
  get(key: string): Answer | undefined {
    const entry = this.entries.get(key)
    if (entry && this.fresh(entry)) {
      // Most recently used last: the oldest go first when the cache is full.
      this.entries.delete(key)
      this.entries.set(key, entry)
      this.count('hit')
      return entry
    }
    if (entry) this.remove(key, entry)
    return undefined
  }

  /** Keeps `answer` under `key` if what it was made from (`reads`, since `mark`) allows. */
  keep(key: string, mark: number, reads: ReadSet, answer: Answer): void {
    const sources = this.sourcesOf(reads)
    const size = answer.body.length + key.length + ENTRY_OVERHEAD
    // A change told while it was made may have come after one of its reads.
    if (!sources || mark !== this.generation || !this.enabled || size > this.maxBytes / LARGEST_SHARE) {
      this.count('uncacheable')
      return
    }
    this.count('miss')
    const old = this.entries.get(key)
    if (old) this.remove(key, old)
    this.entries.set(key, { ...answer, sources, size })
    this.bytes += size
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.remove(oldest, entry)
    }
  }

  /** Answers kept now, and their bytes. */
  get size(): { answers: number; bytes: number } {
    return { answers: this.entries.size, bytes: this.bytes }
  }

  private fresh(entry: Entry): boolean {
    for (const [table, changes] of entry.sources) if ((this.changes.get(table) ?? 0) !== changes) return false
    return true
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key)
    this.bytes -= entry.size
  }

  private clear(): void {
    this.entries.clear()
    this.bytes = 0
  }

  /** The tables `reads` come from with their change counts now, or null if one is not known or not watched. */
  private sourcesOf(reads: ReadSet): Array<readonly [string, number]> | null {
    if (reads.untracked || reads.volatile) return null
    const tables = new Set(reads.tables)
    for (const sql of reads.statements) {
      const read = this.statementTables(sql)
      if (!read) return null
      for (const table of read) tables.add(table)
    }
    const sources: Array<readonly [string, number]> = []
    for (const table of tables) {
      if (this.feed.relations.get(table) !== true) return null
      sources.push([table, this.changes.get(table) ?? 0])
    }
    return sources
  }

  private statementTables(sql: string): readonly string[] | null {
    const relations = this.feed.relations
    if (relations !== this.relations) {
      this.relations = relations
      this.tablesOf = new Map()
    }
    let tables = this.tablesOf.get(sql)
    if (tables === undefined) {
      tables = tablesNamed(sql, relations)
      this.tablesOf.set(sql, tables)
    }
    return tables
  }
}

/**
 * The relations `sql` names, found as words among the database's (over-counting a column
 * that shares a table's name is harmless: one more source), or null when one of them is not
 * watched. Names are compared as PostgreSQL folds them (our SQL quotes none).
 */
export function tablesNamed(sql: string, relations: ReadonlyMap<string, boolean>): readonly string[] | null {
  const found = new Set<string>()
  for (const word of sql.toLowerCase().match(/[a-z_][a-z0-9_$]*/g) ?? []) {
    const watched = relations.get(word)
    if (watched === undefined) continue
    if (!watched) return null
    found.add(word)
  }
  return [...found]
}
