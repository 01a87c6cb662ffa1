import { mkdirSync } from 'node:fs'
import { MISSING_DATABASE, missingDatabaseMessage } from './postgres-database.js'
import { dirname, join } from 'node:path'
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite'
import { type EntitySchema, MikroORM, type Options } from '@mikro-orm/core'
import type { EntityManager as SqlEntityManager, Knex } from '@mikro-orm/knex'
import { PostgreSqlDriver } from '@mikro-orm/postgresql'
import type { Config } from '../config/schema.js'
import type { Logger } from '../log.js'
import { UserError } from '../errors.js'
import { markDependency } from '../http/outage.js'
import { MIGRATIONS_TABLE } from './migrator.js'
import { STATE_TABLE_NAMES } from '../state/state-tables.js'

export type EntityManager = SqlEntityManager
export type Orm = MikroORM

export type Dialect = 'sqlite' | 'postgresql'

export interface DatabaseTarget {
  dialect: Dialect
  /** SQLite file path, or the PostgreSQL connection URL. */
  location: string
}

/** Where the configured database lives: an explicit URL, else SQLite in the data dir. */
export function databaseTarget(config: Config): DatabaseTarget {
  const url = config.database.url
  if (!url) return { dialect: 'sqlite', location: join(config.data_dir, 'mediactl.sqlite') }
  if (url.startsWith('sqlite://')) return { dialect: 'sqlite', location: url.slice('sqlite://'.length) }
  return { dialect: 'postgresql', location: url }
}

/**
 * The tables of the ORM's entities (pivot tables included) but `except`: what the kernel
 * watches for the caches (watch-table.ts), read from MikroORM's metadata so a plugin's new
 * entity is watched without a migration of its own.
 */
export function entityTables(orm: Orm, except: readonly string[] = []): string[] {
  const tables = new Set<string>()
  for (const meta of Object.values(orm.getMetadata().getAll())) {
    if (meta.virtual || meta.embeddable || meta.abstract || meta.expression || !meta.tableName) continue
    if (!except.includes(meta.tableName)) tables.add(meta.tableName)
  }
  return [...tables].sort()
}

/** Hides the password of a database URL for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')
}

/** Opens MikroORM on the configured database with the entities the plugins declare. */
export async function openOrm(config: Config, entities: EntitySchema[], log: Logger): Promise<Orm> {
  const target = databaseTarget(config)
  const common: Options = {
    entities,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug: config.database.debug,
    logger: (message) => log.debug({ sql: message }, 'sql'),
    // Applied migrations live in our own table; the schema generator must not report it.
    migrations: { tableName: MIGRATIONS_TABLE },
    // Nor the tables of the shared state, written with plain SQL (src/kernel/state/).
    schemaGenerator: { skipTables: [...STATE_TABLE_NAMES] },
    // Lists are ordered explicitly; never let a stray query load half the database.
    loadStrategy: 'joined',
    // Never create a database: a typo in its URL must be an error, not a fresh empty appliance.
    ensureDatabase: false,
  }
  if (target.dialect === 'sqlite') {
    mkdirSync(dirname(target.location), { recursive: true })
    return MikroORM.init({
      ...common,
      driver: BetterSqliteDriver,
      dbName: target.location,
      pool: {
        min: 1,
        max: 1,
        afterCreate: (
          connection: { pragma(sql: string): unknown },
          done: (error: Error | null, c: unknown) => void,
        ) => {
          // WAL lets the CLI read while a server writes; foreign keys make cascades real.
          connection.pragma('journal_mode = WAL')
          connection.pragma('foreign_keys = ON')
          connection.pragma('busy_timeout = 5000')
          connection.pragma('synchronous = NORMAL')
          done(null, connection)
        },
      },
    })
  }
  const orm = await MikroORM.init({
    ...common,
    driver: PostgreSqlDriver,
    clientUrl: target.location,
    pool: { min: 0, max: config.database.pool_max },
    driverOptions: postgresOptions(config, log),
  })
  markDatabaseErrors(knexOf(orm))
  try {
    await orm.em.getConnection().execute('select 1')
  } catch (error) {
    // Unreachable now: boot anyway (requests answer 503 until it is back). Missing: say so.
    const refusal = unfixableDatabaseError(config, error)
    if (refusal) {
      await orm.close(true)
      throw refusal
    }
  }
  return orm
}

/** What a pooled node-postgres connection is, as far as the pool's checks look. */
interface PgConnection {
  /** False while a statement is unanswered: one left behind by a read timeout (a dead connection). */
  readyForQuery?: boolean
}

/**
 * The knex options of the PostgreSQL pool, so that no request hangs on a dead server
 * (docs/operations.md, When a dependency fails): a connection opens within `connect_timeout`
 * or fails; a request waits for a free one at most `acquire_timeout`; a statement runs at most
 * `statement_timeout` (the server cancels it), and a connection that leaves one unanswered
 * `connect_timeout` longer is dead (a vanished host: no reset ever comes), so the client gives
 * up on it. The pool opens connections on demand (none kept while idle: `min: 0`) and drops
 * those that broke (knex marks a connection whose socket failed, idle or not, and never
 * hands it out again; the check below drops one left with a statement unanswered): once the
 * server is back, the next request connects, with no restart. TCP keep-alive notices an
 * idle peer that vanished, and keeps firewalls from dropping quiet connections.
 */
function postgresOptions(config: Config, log: Logger): Record<string, unknown> {
  const { connect_timeout, acquire_timeout, statement_timeout } = config.database
  const ms = (seconds: number): number => Math.round(seconds * 1000)
  return {
    connection: {
      connectionTimeoutMillis: ms(connect_timeout),
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(statement_timeout > 0
        ? { statement_timeout: ms(statement_timeout), query_timeout: ms(statement_timeout + connect_timeout) }
        : {}),
    },
    acquireConnectionTimeout: ms(acquire_timeout),
    pool: { validate: (connection: PgConnection) => connection.readyForQuery !== false },
    // knex's own warnings (a broken connection dropped, one per connection): debug lines, not stderr.
    log: {
      warn: (message: unknown) => log.debug({ knex: String(message) }, 'database pool'),
      error: (message: unknown) => log.debug({ knex: String(message) }, 'database pool'),
      deprecate: () => undefined,
      debug: () => undefined,
    },
  }
}

/**
 * Marks what the pool throws (a connection that cannot be opened: refused, timed out) as the
 * database's, so the outage log names it: a refused connection alone does not say whose it was.
 */
function markDatabaseErrors(knex: Knex): void {
  const client = knex.client as { acquireConnection(): Promise<unknown> }
  const acquire = client.acquireConnection.bind(client)
  client.acquireConnection = () =>
    acquire().catch((error: unknown) => {
      throw markDependency(error, 'database')
    })
}

/** PostgreSQL's codes for a refused login: a wrong password or a role that may not connect. */
const REFUSED_LOGIN = new Set(['28P01', '28000'])

/**
 * What the database answered that no waiting fixes (a missing database, a refused login): the
 * error to stop with, saying what to do; undefined for anything else (unreachable: wait).
 */
export function unfixableDatabaseError(config: Config, error: unknown): UserError | undefined {
  const code = codeOf(error)
  const { location } = databaseTarget(config)
  if (code === MISSING_DATABASE) return new UserError(missingDatabaseMessage(location), { cause: error })
  if (typeof code === 'string' && REFUSED_LOGIN.has(code)) {
    return new UserError(`PostgreSQL refused the login of ${redactUrl(location)}`, {
      hint: 'check the user and password in database.url (MEDIACTL_DATABASE__URL)',
      cause: error,
    })
  }
  return undefined
}

function codeOf(error: unknown): unknown {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code } = current as { code?: unknown }
    if (code !== undefined) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** The knex instance behind the ORM, for migrations and counting queries. */
export function knexOf(orm: Orm): Knex {
  return (orm.em as SqlEntityManager).getKnex()
}
