/** What each database needs; PostgreSQL gets them from the kernel's migrations (state-migrations.ts). */
export const STATE_TABLES = [
  `create table if not exists kernel_nonce_counts (nonce varchar(64) not null, nc bigint not null,
     expires_at bigint not null, primary key (nonce, nc))`,
  'create index if not exists kernel_nonce_counts_expires_at_index on kernel_nonce_counts (expires_at)',
  `create table if not exists kernel_locks (name varchar(255) not null primary key, holder varchar(64) not null,
     expires_at bigint not null, release_requested smallint not null default 0)`,
] as const

/**
 * The tables of `state: database` on PostgreSQL: no entity maps them (nothing reads them through the ORM), so the
 * schema generator leaves them out of its comparison.
 */
export const STATE_TABLE_NAMES = ['kernel_locks', 'kernel_nonce_counts'] as const
