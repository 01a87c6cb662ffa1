import type { Knex } from '@mikro-orm/knex'
import type { Config } from '../config/schema.js'
import { databaseTarget } from '../db/orm.js'
import type { Logger } from '../log.js'
import { type ChangeFeed, PostgresChangeFeed } from './change-feed.js'
import { SqliteChangeFeed } from './sqlite-change-feed.js'

/** A statement that may change rows, or ends a transaction that did. */
const WRITES = /^\s*(insert|update|delete|truncate|merge|commit|with)\b/i

/**
 * The cache layer as the kernel holds it: the change feed, which tells the process caches
 * (`ctx.cache`) that a table changed, and this process's own writes, which tell them at once.
 * Off until `serve` (listen): CLI commands and workers read through.
 */
export class Caches {
  readonly changes: ChangeFeed

  constructor(config: Config, log: Logger) {
    this.changes = changeFeedOf(config, log)
  }

  /** Whether the caches serve now: a serving process with its change feed live. */
  get live(): boolean {
    return this.changes.live
  }

  /** As each request starts: the changes the feed learns only by asking (SQLite's data version). */
  catchUp(): void {
    this.changes.sync()
  }

  /**
   * Turns the caches on in a serving process: starts the change feed, and drops this
   * process's caches at each of its own writes and commits, before the feed tells them, so a
   * client reads what it just wrote.
   */
  start(knex: Knex): void {
    const dropOnWrite = (query: { sql?: string } | undefined): void => {
      if (WRITES.test(query?.sql ?? '')) this.changes.wrote()
    }
    // Before a write runs, and again once it (or the commit) is done: a read racing the commit
    // may have kept the old value in between.
    knex.on('query', dropOnWrite)
    knex.on('query-response', (_response: unknown, query: { sql?: string }) => dropOnWrite(query))
    this.changes.start()
  }

  close(): Promise<void> {
    return this.changes.close()
  }
}

function changeFeedOf(config: Config, log: Logger): ChangeFeed {
  const target = databaseTarget(config)
  if (target.dialect === 'sqlite') return new SqliteChangeFeed(target.location)
  return new PostgresChangeFeed(
    target.location,
    config.database.connect_timeout * 1000,
    log.child({ module: 'change-feed' }),
  )
}
