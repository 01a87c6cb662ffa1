import type { ChangeFeed } from './change-feed.js'
import type { ReadSet } from './read-tracking.js'

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

/** Bytes counted for an entry beyond its body and key (headers, the entry, the map's slot). */
const ENTRY_OVERHEAD = 640

/** Bytes counted per table an entry was made from (a pair in an array). */
const SOURCE_OVERHEAD = 48

/** Most statements whose tables are remembered (lists of ids make statements of every length). */
const STATEMENTS_MAX = 1000

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

  /** Whether answers are kept now (the feed live, a size above 0). */
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
    const size = answer.body.length + 2 * key.length + ENTRY_OVERHEAD + (sources?.length ?? 0) * SOURCE_OVERHEAD
    // A change told while it was made may have come after one of its reads.
    if (!sources || mark !== this.generation || !this.enabled || size > this.maxBytes / LARGEST_SHARE) {
      this.count('uncacheable')
      return
    }
    this.count('miss')
    const old = this.entries.get(key)
    if (old) this.remove(key, old)
    // A body of its own: a small Buffer is a slice of an 8 KiB pool, which keeping it would keep whole.
    const body = Buffer.allocUnsafeSlow(answer.body.length)
    answer.body.copy(body)
    this.entries.set(key, { status: answer.status, headers: answer.headers, body, sources, size })
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
      if (this.tablesOf.size >= STATEMENTS_MAX) this.tablesOf.clear()
      this.tablesOf.set(sql, tables)
    }
    return tables
  }
}

/** A word of SQL (unquoted: folded to lowercase, as PostgreSQL folds it), or one character of punctuation. */
const TOKENS = /"((?:[^"]|"")*)"|'(?:[^']|'')*'|([A-Za-z_][A-Za-z0-9_$]*)|(\S)/g

/** SQL as words and punctuation, string literals left out, quoted names kept as written. */
function tokensOf(sql: string): string[] {
  const tokens: string[] = []
  for (const [text, quoted, word, mark] of sql.matchAll(TOKENS)) {
    // A quoted name is the same relation as the plain word when it is written in lowercase.
    if (quoted !== undefined) tokens.push(/^[a-z_][a-z0-9_$]*$/.test(quoted) ? quoted : `"${quoted}`)
    else if (word !== undefined) tokens.push(word.toLowerCase())
    else if (mark !== undefined) tokens.push(mark)
    else if (text.startsWith("'")) tokens.push("'")
  }
  return tokens
}

const isWord = (token: string | undefined): token is string => token !== undefined && /^[a-z_]/.test(token)

/** Functions whose arguments hold a `from` that names no table (`extract(epoch from t)`). */
const FROM_IN_ARGUMENTS = new Set(['extract', 'substring', 'trim', 'overlay'])

/** Words that may follow a FROM item where an alias would stand: they are not its alias. */
const AFTER_ITEM = new Set(
  'where join inner left right full cross natural on using group order limit offset having union except intersect window for returning set values lateral fetch'.split(
    ' ',
  ),
)

/** The names a `with` defines (`with b as (`, `with recursive chain(id) as (`). */
function commonTableNames(tokens: readonly string[]): Set<string> {
  const names = new Set<string>()
  for (let i = 1; i < tokens.length; i++) {
    const before = tokens[i - 1]
    if (!(before === 'with' || before === 'recursive' || before === ',') || !isWord(tokens[i])) continue
    let j = i + 1
    if (tokens[j] === '(') {
      while (j < tokens.length && tokens[j] !== ')') j++
      j++
    }
    if (tokens[j] !== 'as') continue
    j++
    if (tokens[j] === 'not') j++
    if (tokens[j] === 'materialized') j++
    if (tokens[j] === '(') names.add(tokens[i]!)
  }
  return names
}

/**
 * The relations `sql` reads, or null when one of them is not watched or cannot be told. Every
 * relation named as a word counts (over-counting a column that shares a table's name is
 * harmless: one more source); and each FROM or JOIN item must be a relation of the schema, a
 * name of its `with`, or a subquery: another schema's table, a function (which may read
 * anything) or an unknown name make it null, so that nothing read escapes the count.
 */
export function tablesNamed(sql: string, relations: ReadonlyMap<string, boolean>): readonly string[] | null {
  const tokens = tokensOf(sql)
  const found = new Set<string>()
  for (const token of tokens) {
    const watched = relations.get(token)
    if (watched === undefined) continue
    if (!watched) return null
    found.add(token)
  }
  const withNames = commonTableNames(tokens)
  const openers: string[] = []
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token === '(') openers.push(tokens[i - 1] ?? '')
    else if (token === ')') openers.pop()
    if (token !== 'from' && token !== 'join') continue
    if (token === 'from' && (FROM_IN_ARGUMENTS.has(openers.at(-1) ?? '') || tokens[i - 1] === 'distinct')) continue
    let j = i + 1
    for (;;) {
      if (tokens[j] === 'lateral' || tokens[j] === 'only') j++
      if (tokens[j] === '(') break
      const name = tokens[j]
      if (!isWord(name) || tokens[j + 1] === '.' || tokens[j + 1] === '(') return null
      if (!relations.has(name) && !withNames.has(name)) return null
      j++
      if (tokens[j] === 'as') j++
      if (isWord(tokens[j]) && !AFTER_ITEM.has(tokens[j]!)) j++
      if (tokens[j] !== ',') break
      j++
    }
  }
  return [...found]
}
