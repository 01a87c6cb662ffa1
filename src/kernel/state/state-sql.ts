import Database from 'better-sqlite3'
import pg from 'pg'
import type { DatabaseTarget } from '../db/orm.js'
import { markDependency } from '../http/outage.js'
import type { Logger } from '../log.js'
import { STATE_TABLES } from './state-tables.js'

/**
 * The statements of the database adapters of shared state (nonce counts, locks), sent on
 * connections of their own: never through the ORM, whose writes drop this process's caches,
 * and (SQLite) never into the main file, where any commit drops every process's caches.
 * Placeholders are `?`.
 */
export interface StateSql {
  rows<R>(sql: string, params: readonly unknown[]): Promise<R[]>
  close(): Promise<void>
}

/** What the state's own connection is called in `pg_stat_activity`. */
export const STATE_APPLICATION_NAME = 'mediactl shared state'

/**
 * PostgreSQL: a pool of two connections with `synchronous_commit = off`, so a nonce count
 * costs one round trip and no wait for the disk (a crash of the server loses at most the
 * last few hundred milliseconds of counts: docs/decisions, shared state in the database).
 */
class PostgresStateSql implements StateSql {
  private readonly pool: pg.Pool

  constructor(url: string, timeouts: StateTimeouts, log: Logger) {
    const ms = (seconds: number): number => Math.round(seconds * 1000)
    const { connect_timeout, statement_timeout } = timeouts
    // The main pool's bounds (db/orm.ts): a statement left unanswered past them means a vanished server, and the
    // request answers 503 instead of hanging; pg-pool drops the connection it failed on.
    this.pool = new pg.Pool({
      connectionString: url,
      max: 2,
      connectionTimeoutMillis: ms(connect_timeout),
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(statement_timeout > 0
        ? { statement_timeout: ms(statement_timeout), query_timeout: ms(statement_timeout + connect_timeout) }
        : {}),
      application_name: STATE_APPLICATION_NAME,
      options: '-c synchronous_commit=off',
    })
    // An idle connection the server dropped: the next statement opens another.
    this.pool.on('error', (error) => log.warn({ err: error.message }, 'shared state connection lost'))
  }

  async rows<R>(sql: string, params: readonly unknown[]): Promise<R[]> {
    let n = 0
    try {
      const result = await this.pool.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params as unknown[],
      )
      return result.rows as R[]
    } catch (error) {
      throw markDependency(error, 'database')
    }
  }

  close(): Promise<void> {
    return this.pool.end()
  }
}

/**
 * SQLite: a file of its own beside the database (`<name>.state.sqlite`), opened on first use and
 * shared by every process on the machine through SQLite's single writer; `synchronous = off`:
 * a counted nonce survives a process crash, not a power cut.
 */
class SqliteStateSql implements StateSql {
  private db: Database.Database | undefined
  private closed = false
  private readonly statements = new Map<string, Database.Statement>()

  constructor(private readonly file: string) {}

  private open(): Database.Database {
    if (this.db) return this.db
    if (this.closed) throw new Error('the shared state file is closed')
    const db = new Database(this.file)
    db.pragma('journal_mode = WAL')
    db.pragma('busy_timeout = 5000')
    db.pragma('synchronous = OFF')
    for (const statement of STATE_TABLES) db.exec(statement)
    this.db = db
    return db
  }

  rows<R>(sql: string, params: readonly unknown[]): Promise<R[]> {
    try {
      let statement = this.statements.get(sql)
      if (!statement) {
        statement = this.open().prepare(sql)
        this.statements.set(sql, statement)
      }
      return Promise.resolve(statement.reader ? (statement.all(...params) as R[]) : (statement.run(...params), []))
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)))
    }
  }

  close(): Promise<void> {
    this.closed = true
    this.statements.clear()
    this.db?.close()
    this.db = undefined
    return Promise.resolve()
  }
}

/** The state file of a SQLite database file. */
export function sqliteStateFile(databaseFile: string): string {
  return databaseFile.replace(/(\.sqlite3?|\.db)?$/, '.state.sqlite')
}

/** The `database` settings that bound a statement of the shared state (seconds). */
export interface StateTimeouts {
  connect_timeout: number
  statement_timeout: number
}

export function openStateSql(target: DatabaseTarget, timeouts: StateTimeouts, log: Logger): StateSql {
  return target.dialect === 'postgresql'
    ? new PostgresStateSql(target.location, timeouts, log)
    : new SqliteStateSql(sqliteStateFile(target.location))
}
