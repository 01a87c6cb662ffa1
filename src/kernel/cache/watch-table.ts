import type { Knex } from '@mikro-orm/knex'
import { CHANGES_CHANNEL } from './change-feed.js'
import { type MigrationDefinition, defineMigration } from '../db/migration.js'

const isPostgres = (knex: Knex): boolean => (knex.client as { dialect?: string }).dialect === 'postgresql'

/**
 * In a migration: every statement that changes `table` notifies the change feed, once, at
 * commit, whichever process or session ran it (cascades included), so the caches reading
 * from it drop what they keep (`ctx.cache`). A trigger exists on PostgreSQL alone: SQLite caches
 * too, but its feed sees every commit (sqlite-change-feed.ts) and drops everything, so no table
 * needs watching there.
 */
export async function watchTable(knex: Knex, table: string): Promise<void> {
  if (!isPostgres(knex)) return
  await knex.raw(`create or replace function mediactl_notify_change() returns trigger language plpgsql as $$
    begin perform pg_notify('${CHANGES_CHANNEL}', tg_table_name); return null; end $$`)
  await knex.raw(
    `create trigger ${table}_notify_change after insert or update or delete or truncate on ${table}
     for each statement execute function mediactl_notify_change()`,
  )
}

/** Undoes `watchTable` (a migration's `down`). */
export async function unwatchTable(knex: Knex, table: string): Promise<void> {
  if (!isPostgres(knex)) return
  await knex.raw(`drop trigger if exists ${table}_notify_change on ${table}`)
}

/** A plugin's migration that watches `tables` (and stops watching them when undone). */
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
