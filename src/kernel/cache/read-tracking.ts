import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * What one answer was made from, so it can be kept until that changes (answer-cache.ts): the
 * reader's statements and the tables of the process caches it consulted. An answer read in a
 * way not tracked (through the ORM) or that will not stay true (a signed link that expires) is
 * marked, and then not kept.
 */
export class ReadSet {
  /** The SQL text of every statement of the kernel's reader. */
  readonly statements = new Set<string>()
  /** The tables of the process caches consulted (hits included: they hold rows of those tables). */
  readonly tables = new Set<string>()
  /** Something was read outside the reader and the caches (the ORM, knex): its tables are unknown. */
  untracked = false
  /** The answer holds something that expires (a signed token): true now, not later. */
  volatile = false
}

const current = new AsyncLocalStorage<ReadSet>()

/**
 * The recording side: the reader, the process caches, knex and the token signer report here,
 * and only within `run` (an answer being made) is anything recorded.
 */
export const readTracking = {
  /** Runs `work` recording what it reads into `reads`. */
  run<T>(reads: ReadSet, work: () => Promise<T>): Promise<T> {
    return current.run(reads, work)
  },
  statement(sql: string): void {
    current.getStore()?.statements.add(sql)
  },
  tables(tables: Iterable<string>): void {
    const reads = current.getStore()
    if (reads) for (const table of tables) reads.tables.add(table)
  },
  untracked(): void {
    const reads = current.getStore()
    if (reads) reads.untracked = true
  },
  volatile(): void {
    const reads = current.getStore()
    if (reads) reads.volatile = true
  },
}
