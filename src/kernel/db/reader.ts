import Database from 'better-sqlite3'
import type { Knex } from '@mikro-orm/knex'
import type { DatabaseTarget } from './orm.js'

/** A row as the database returns it (column name → value). */
export type Row = Record<string, unknown>

/**
 * Read-only queries for hot paths (authentication, info and list endpoints), outside the
 * ORM: statements are prepared once and reused. SQL is written once for both databases
 * with `?` placeholders and plain lowercase identifiers. Reads see committed data only:
 * inside a transaction, read through its EntityManager instead.
 */
export interface Reader {
  /** The first row of a query, or undefined. */
  one<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T | undefined>
  /** Every row of a query. */
  all<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>
  /** The number in the column `n` of a `select count(*) as n ...` (PostgreSQL answers bigints as text). */
  count(sql: string, params?: readonly unknown[]): Promise<number>
  /** Releases the reader's own resources. */
  close(): void
}

/** A JSON column's value as read: SQLite answers the text, PostgreSQL the parsed value. */
export function jsonColumn<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T
}

/** The shared `count` of every reader. */
async function countOf(reader: Pick<Reader, 'one'>, sql: string, params?: readonly unknown[]): Promise<number> {
  return Number((await reader.one<{ n: number | string }>(sql, params))?.n ?? 0)
}

/**
 * SQLite: a second, read-only connection to the same file. In WAL mode it reads the last
 * committed state without blocking the writer; prepared statements are cached by SQL.
 */
class SqliteReader implements Reader {
  private readonly db: Database.Database
  private readonly statements = new Map<string, Database.Statement>()

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true })
    this.db.pragma('busy_timeout = 5000')
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql)
    if (!statement) {
      statement = this.db.prepare(sql)
      this.statements.set(sql, statement)
    }
    return statement
  }

  one<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    try {
      return Promise.resolve(this.statement(sql).get(...params) as T | undefined)
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  all<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      return Promise.resolve(this.statement(sql).all(...params) as T[])
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  count(sql: string, params?: readonly unknown[]): Promise<number> {
    return countOf(this, sql, params)
  }

  close(): void {
    this.db.close()
  }
}

/** PostgreSQL: the ORM's connection pool, through knex's raw queries. */
class PostgresReader implements Reader {
  constructor(private readonly knex: Knex) {}

  async one<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0]
  }

  async all<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const result = (await this.knex.raw(sql, params as never)) as { rows: T[] }
    return result.rows
  }

  count(sql: string, params?: readonly unknown[]): Promise<number> {
    return countOf(this, sql, params)
  }

  close(): void {}
}

/** The reader for the configured database (call after migrations created the file). */
export function openReader(target: DatabaseTarget, knex: Knex): Reader {
  return target.dialect === 'sqlite' ? new LazySqliteReader(target.location) : new PostgresReader(knex)
}

/** Opens the SQLite connection on first use, so a kernel can boot before the file exists. */
class LazySqliteReader implements Reader {
  private reader: SqliteReader | undefined

  constructor(private readonly file: string) {}

  private get inner(): SqliteReader {
    this.reader ??= new SqliteReader(this.file)
    return this.reader
  }

  one<T extends Row>(sql: string, params?: readonly unknown[]): Promise<T | undefined> {
    return this.inner.one<T>(sql, params)
  }

  all<T extends Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.inner.all<T>(sql, params)
  }

  count(sql: string, params?: readonly unknown[]): Promise<number> {
    return countOf(this, sql, params)
  }

  close(): void {
    this.reader?.close()
    this.reader = undefined
  }
}
