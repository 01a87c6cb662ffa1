/** The table of locks, the same on both databases. */
const LOCKS = `create table if not exists kernel_locks (name varchar(255) not null primary key, holder varchar(64) not null,
  expires_at bigint not null, release_requested smallint not null default 0)`

/**
 * PostgreSQL's shared state, made by the kernel's migration (state-migrations.ts): a row per nonce count used, so a
 * claim is one insert (postgres-nonce-counter.ts), and the locks.
 */
export const POSTGRES_TABLES = [
  `create table if not exists kernel_nonce_counts (nonce varchar(64) not null, nc bigint not null,
     expires_at bigint not null, primary key (nonce, nc))`,
  'create index if not exists kernel_nonce_counts_expires_at_index on kernel_nonce_counts (expires_at)',
  LOCKS,
] as const

/**
 * SQLite's state file, made when it is opened (state-sql.ts): a row per nonce, not per count, with the highest count
 * used and a bitmap of the window below it (sqlite-nonce-counter.ts). One row updated in place dirties one page per
 * request, where a row per count wrote three pages of two indexes at random places of the file: a SQLite server's
 * CPU per request doubled (docs/benchmarks.md).
 */
export const SQLITE_TABLES = [
  `create table if not exists nonce_windows (nonce text not null primary key, top integer not null,
     seen integer not null, expires_at integer not null) without rowid`,
  LOCKS,
] as const

/**
 * The tables of `state: database` on PostgreSQL: no entity maps them (nothing reads them through the ORM), so the
 * schema generator leaves them out of its comparison.
 */
export const STATE_TABLE_NAMES = ['kernel_locks', 'kernel_nonce_counts'] as const
