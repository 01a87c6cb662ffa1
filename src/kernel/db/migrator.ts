import type { Knex } from '@mikro-orm/knex'
import { watchTables } from '../cache/watch-table.js'
import type { MigrationDefinition } from './migration.js'

export const MIGRATIONS_TABLE = 'mediactl_migrations'

/** A migration with the plugin that owns it. */
export interface OwnedMigration extends MigrationDefinition {
  plugin: string
}

export interface MigrationStatus {
  name: string
  plugin: string
  /** When it was applied, or null while pending. */
  executedAt: Date | null
}

/** A node-postgres client, as `withoutStatementTimeout` changes it. */
interface PgConnection {
  connectionParameters?: { query_timeout?: number | false }
  query(sql: string): Promise<unknown>
}

interface PoolClient {
  dialect?: string
  acquireConnection(): Promise<PgConnection>
  releaseConnection(connection: PgConnection): Promise<void>
}

/**
 * Runs `work` on a PostgreSQL connection of its own without the statement timeouts
 * (`database.statement_timeout` on the server, the read timeout on the client), restored
 * before the connection goes back to the pool: a migration may rightly take long (an index on
 * a large table). SQLite has none: `work` gets no connection and runs as usual.
 */
async function withoutStatementTimeout<T>(knex: Knex, work: (connection?: unknown) => Promise<T>): Promise<T> {
  const client = knex.client as unknown as PoolClient
  if (client.dialect !== 'postgresql') return work()
  const connection = await client.acquireConnection()
  const parameters = connection.connectionParameters
  const readTimeout = parameters?.query_timeout
  try {
    if (parameters) parameters.query_timeout = false
    await connection.query('set statement_timeout = 0')
    return await work(connection)
  } finally {
    if (parameters) parameters.query_timeout = readTimeout
    // Back to the session's value (the configured limit, sent when it connected).
    await connection.query('reset statement_timeout').catch(() => undefined)
    await client.releaseConnection(connection)
  }
}

/**
 * Applies plugin migrations in plugin dependency order and records each one in
 * `mediactl_migrations`, each in its own transaction with its record, so a failed
 * migration leaves nothing half applied.
 */
export class Migrator {
  /**
   * `watched`: the tables whose changes the change feed must tell (every enabled plugin's
   * entities), given their triggers after each `up` (watch-table.ts).
   */
  constructor(
    private readonly knex: Knex,
    private readonly migrations: OwnedMigration[],
    private readonly watched: () => readonly string[] = () => [],
  ) {
    const seen = new Set<string>()
    for (const m of migrations) {
      if (seen.has(m.name)) throw new Error(`migration name "${m.name}" is used twice (plugin ${m.plugin})`)
      seen.add(m.name)
    }
  }

  private async ensureTable(): Promise<void> {
    if (await this.knex.schema.hasTable(MIGRATIONS_TABLE)) return
    await this.knex.schema.createTable(MIGRATIONS_TABLE, (t) => {
      t.string('name', 255).primary()
      t.string('plugin', 64).notNullable()
      t.datetime('executed_at', { useTz: true }).notNullable()
    })
  }

  private async executed(): Promise<Map<string, Date>> {
    await this.ensureTable()
    const rows = (await this.knex(MIGRATIONS_TABLE).select('name', 'executed_at')) as {
      name: string
      executed_at: string | number | Date
    }[]
    return new Map(rows.map((r) => [r.name, new Date(r.executed_at)]))
  }

  async status(): Promise<MigrationStatus[]> {
    const done = await this.executed()
    return this.migrations.map((m) => ({ name: m.name, plugin: m.plugin, executedAt: done.get(m.name) ?? null }))
  }

  async pending(): Promise<OwnedMigration[]> {
    const done = await this.executed()
    return this.migrations.filter((m) => !done.has(m.name))
  }

  /**
   * Applies every pending migration, then watches the tables that are not watched yet (even
   * when none was pending); returns the names applied.
   */
  async up(onEach?: (m: OwnedMigration) => void): Promise<string[]> {
    const applied: string[] = []
    for (const m of await this.pending()) {
      onEach?.(m)
      await withoutStatementTimeout(this.knex, (connection) =>
        this.knex.transaction(
          async (trx) => {
            await m.up(trx)
            await trx(MIGRATIONS_TABLE).insert({ name: m.name, plugin: m.plugin, executed_at: new Date() })
          },
          { connection },
        ),
      )
      applied.push(m.name)
    }
    await watchTables(this.knex, this.watched())
    return applied
  }

  /** Reverts the `steps` most recently applied migrations; returns the names reverted. */
  async down(steps = 1, onEach?: (m: OwnedMigration) => void): Promise<string[]> {
    const done = await this.executed()
    const applied = this.migrations
      .filter((m) => done.has(m.name))
      .reverse()
      .slice(0, steps)
    const reverted: string[] = []
    for (const m of applied) {
      onEach?.(m)
      await withoutStatementTimeout(this.knex, (connection) =>
        this.knex.transaction(
          async (trx) => {
            await m.down(trx)
            await trx(MIGRATIONS_TABLE).where({ name: m.name }).delete()
          },
          { connection },
        ),
      )
      reverted.push(m.name)
    }
    return reverted
  }
}
