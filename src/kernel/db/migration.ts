import type { Knex } from '@mikro-orm/knex'

/**
 * One schema step of a plugin, written with knex's schema builder so the same migration
 * runs on SQLite and PostgreSQL. `name` must be unique across the installation; prefix it
 * with a date so the order reads naturally (for example `20261121-platforms-init`).
 */
export interface MigrationDefinition {
  /** Unique, stable name; recorded in the `mediactl_migrations` table once applied. */
  name: string
  /** Applies the change. Runs inside a transaction with the migration's bookkeeping. */
  up(knex: Knex.Transaction): Promise<void>
  /** Reverts `up`. Runs inside a transaction. */
  down(knex: Knex.Transaction): Promise<void>
}

export function defineMigration(definition: MigrationDefinition): MigrationDefinition {
  return definition
}

/** Column helpers shared by every plugin's migrations, so types match the entity mappings. */
export const columns = {
  /** Auto-incremented integer primary key `id`. */
  id(t: Knex.CreateTableBuilder): void {
    t.increments('id').primary()
  },
  /** `created_at` timestamp with time zone, set by the entity on insert. */
  createdAt(t: Knex.CreateTableBuilder): void {
    t.datetime('created_at', { useTz: true }).notNullable()
  },
  /** Unique `slug`, at most 64 characters. */
  slug(t: Knex.CreateTableBuilder): void {
    t.string('slug', 64).notNullable().unique()
  },
  /**
   * Integer foreign key `<name>_id` to `<table>.id`, indexed. Deleting the target cascades
   * by default (set null when nullable); pass `onDelete: 'restrict'` to forbid it.
   */
  reference(
    t: Knex.CreateTableBuilder,
    name: string,
    table: string,
    options: { nullable?: boolean; onDelete?: 'cascade' | 'set null' | 'restrict' } = {},
  ): void {
    const column = t.integer(`${name}_id`).unsigned()
    if (options.nullable) column.nullable()
    else column.notNullable()
    const onDelete = options.onDelete ?? (options.nullable ? 'set null' : 'cascade')
    t.foreign(`${name}_id`).references('id').inTable(table).onUpdate('cascade').onDelete(onDelete)
    t.index([`${name}_id`])
  },
}
