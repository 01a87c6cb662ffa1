import Database from 'better-sqlite3'
import type { Knex } from '@mikro-orm/knex'
import type { DatabaseTarget, EntityManager } from '../db/orm.js'
import { requestLane } from './request-lane.js'

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
  /** Statements run since the reader opened (the benchmark's queries per request). */
  readonly executed: number
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
  executed = 0

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true })
    this.db.pragma('busy_timeout = 5000')
  }

  private statement(sql: string): Database.Statement {
    this.executed++
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

/** `?` placeholders as PostgreSQL's `$1`, `$2`, ... (none of ours sits inside a quoted string: those are skipped). */
export function numberedPlaceholders(sql: string): string {
  let n = 0
  let out = ''
  let quote: string | null = null
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null
      out += ch
    } else if (ch === "'" || ch === '"') {
      quote = ch
      out += ch
    } else out += ch === '?' ? `$${(n += 1)}` : ch
  }
  return out
}

/** Most distinct statements prepared by name on each connection; others run unnamed. */
const NAMED_STATEMENTS_MAX = 500

interface PgConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>
}

interface KnexClient {
  acquireConnection(): Promise<PgConnection>
  releaseConnection(connection: PgConnection): Promise<void>
}

/**
 * PostgreSQL: the ORM's connection pool, with named prepared statements. The hot reads are
 * few and repeat on every request: preparing each once per connection saves the server its
 * parsing and planning, and the client a third of its work (measured: docs/benchmarks.md).
 * A request's statements take their turns in its lane (request-lane.ts): one connection each.
 */
class PostgresReader implements Reader {
  private readonly statements = new Map<string, { name?: string; text: string }>()
  executed = 0

  constructor(private readonly knex: Knex) {}

  private statement(sql: string): { name?: string; text: string } {
    this.executed++
    let statement = this.statements.get(sql)
    if (!statement) {
      const text = numberedPlaceholders(sql)
      // Lists of ids make statements of every length: past the bound, they run unnamed.
      const named = this.statements.size < NAMED_STATEMENTS_MAX
      statement = named ? { name: `mediactl_${this.statements.size + 1}`, text } : { text }
      if (named) this.statements.set(sql, statement)
    }
    return statement
  }

  async one<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0]
  }

  all<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const statement = this.statement(sql)
    return requestLane.through(async () => {
      const client = this.knex.client as unknown as KnexClient
      const connection = await client.acquireConnection()
      try {
        return (await connection.query({ ...statement, values: [...params] })).rows as T[]
      } finally {
        await client.releaseConnection(connection)
      }
    })
  }

  count(sql: string, params?: readonly unknown[]): Promise<number> {
    return countOf(this, sql, params)
  }

  close(): void {}
}

/** The reader for the configured database (call after migrations created the file). */
/**
 * The reads of a transaction, as a Reader: for queries written for the committed-data reader
 * that run inside a change's transaction (event listeners). They see the transaction's own
 * writes, and take no second connection: on PostgreSQL a transaction holding a lock that waits
 * for a pool connection, while the pool is held by transactions waiting for that lock, would
 * deadlock until the acquire timeout.
 */
export function transactionReader(em: EntityManager): Reader {
  return new TransactionReader(em)
}

class TransactionReader implements Reader {
  executed = 0

  constructor(private readonly em: EntityManager) {}

  async one<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0]
  }

  all<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    this.executed++
    return this.em.execute<T[]>(sql, [...params])
  }

  count(sql: string, params?: readonly unknown[]): Promise<number> {
    return countOf(this, sql, params)
  }

  close(): void {}
}

export function openReader(target: DatabaseTarget, knex: Knex): Reader {
  return target.dialect === 'sqlite' ? new LazySqliteReader(target.location) : new PostgresReader(knex)
}

/** Opens the SQLite connection on first use, so a kernel can boot before the file exists. */
class LazySqliteReader implements Reader {
  private reader: SqliteReader | undefined
  // Statements of the connections closed before the current one.
  private closedExecuted = 0

  constructor(private readonly file: string) {}

  get executed(): number {
    return this.closedExecuted + (this.reader?.executed ?? 0)
  }

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
    this.closedExecuted = this.executed
    this.reader?.close()
    this.reader = undefined
  }
}
