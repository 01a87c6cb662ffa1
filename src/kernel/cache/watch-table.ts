import type { Knex } from '@mikro-orm/knex'
import { CHANGES_CHANNEL } from './change-feed.js'
import { type MigrationDefinition, defineMigration } from '../db/migration.js'

const isPostgres = (knex: Knex): boolean => (knex.client as { dialect?: string }).dialect === 'postgresql'

const NOTIFY_FUNCTION = `create or replace function mediactl_notify_change() returns trigger language plpgsql as $$
    begin perform pg_notify('${CHANGES_CHANNEL}', tg_table_name); return null; end $$`

const createTrigger = (table: string): string =>
  `create trigger ${table}_notify_change after insert or update or delete or truncate on ${table}
     for each statement execute function mediactl_notify_change()`

/**
 * Every statement that changes `table` notifies the change feed, once, at commit, whichever
 * process or session ran it (cascades included), so the caches reading from it drop what they
 * keep (`ctx.cache`). A trigger exists on PostgreSQL alone: SQLite caches
 * too, but its feed sees every commit (sqlite-change-feed.ts) and drops everything, so no table
 * needs watching there. Used by the kernel (`watchTables`) and by the watch migrations written
 * before it installed the triggers itself.
 */
export async function watchTable(knex: Knex, table: string): Promise<void> {
  if (!isPostgres(knex)) return
  await knex.raw(NOTIFY_FUNCTION)
  await knex.raw(createTrigger(table))
}

/**
 * What the kernel does after every `migrate`: puts the trigger on each of `tables` that exists
 * and has none yet, so every table of every enabled plugin's entities is watched without a
 * migration of the plugin's own (docs/decisions/0253-cache-triggers-installed-by-the-kernel.md).
 * Idempotent; a table the migrations have not made (yet) is skipped. Returns the tables it
 * started watching.
 */
export async function watchTables(knex: Knex, tables: Iterable<string>): Promise<string[]> {
  if (!isPostgres(knex)) return []
  const wanted = [...new Set(tables)]
  if (!wanted.length) return []
  const { rows } = (await knex.raw(
    `select c.relname as name,
       exists (select 1 from pg_trigger t where t.tgrelid = c.oid and t.tgname = c.relname || '_notify_change') as watched
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relkind in ('r', 'p') and c.relname in (${wanted.map(() => '?').join(', ')})`,
    wanted,
  )) as { rows: { name: string; watched: boolean }[] }
  const unwatched = rows.filter((row) => !row.watched).map((row) => row.name)
  if (!unwatched.length) return []
  await knex.transaction(async (trx) => {
    await trx.raw(NOTIFY_FUNCTION)
    for (const table of unwatched) await trx.raw(createTrigger(table))
  })
  return unwatched.sort()
}

/** Undoes `watchTable` (a migration's `down`). */
export async function unwatchTable(knex: Knex, table: string): Promise<void> {
  if (!isPostgres(knex)) return
  await knex.raw(`drop trigger if exists ${table}_notify_change on ${table}`)
}

/**
 * A plugin's migration that watches `tables` (and stops watching them when undone). Superseded
 * by the kernel's `watchTables`: the plugins' existing watch migrations stay for the databases
 * that recorded them; write no new one.
 */
export function watchMigration(name: string, tables: readonly string[]): MigrationDefinition {
  return defineMigration({
    name,
    async up(knex) {
      for (const table of tables) await watchTable(knex, table)
    },
    async down(knex) {
      for (const table of tables) await unwatchTable(knex, table)
    },
  })
}
