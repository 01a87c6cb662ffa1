import type { Knex } from '@mikro-orm/knex'
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

/**
 * Applies plugin migrations in plugin dependency order and records each one in
 * `mediactl_migrations`, each in its own transaction with its record, so a failed
 * migration leaves nothing half applied.
 */
export class Migrator {
  constructor(
    private readonly knex: Knex,
    private readonly migrations: OwnedMigration[],
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

  /** Applies every pending migration; returns the names applied. */
  async up(onEach?: (m: OwnedMigration) => void): Promise<string[]> {
    const applied: string[] = []
    for (const m of await this.pending()) {
      onEach?.(m)
      await this.knex.transaction(async (trx) => {
        await m.up(trx)
        await trx(MIGRATIONS_TABLE).insert({ name: m.name, plugin: m.plugin, executed_at: new Date() })
      })
      applied.push(m.name)
    }
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
      await this.knex.transaction(async (trx) => {
        await m.down(trx)
        await trx(MIGRATIONS_TABLE).where({ name: m.name }).delete()
      })
      reverted.push(m.name)
    }
    return reverted
  }
}
