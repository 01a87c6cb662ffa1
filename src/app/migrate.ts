import type { MigrationStatus } from '../kernel/index.js'
import { createLogger } from '../kernel/log.js'
import { type BootRequest, bootKernel } from './boot.js'

export type MigrateAction = 'up' | 'down' | 'status'

export interface MigrateResult {
  action: MigrateAction
  /** Migrations applied (up) or reverted (down). */
  changed: string[]
  status: MigrationStatus[]
}

/** Applies, reverts (`steps` at a time) or lists the plugins' migrations. */
export async function migrate(
  action: MigrateAction,
  options: BootRequest & { steps?: number; progress?: (message: string) => void },
): Promise<MigrateResult> {
  const kernel = await bootKernel({ logger: createLogger('warn', 2), ...options })
  try {
    const say = options.progress ?? (() => undefined)
    let changed: string[] = []
    if (action === 'up') changed = await kernel.migrator.up((m) => say(`applying ${m.name} (${m.plugin})`))
    if (action === 'down')
      changed = await kernel.migrator.down(options.steps ?? 1, (m) => say(`reverting ${m.name} (${m.plugin})`))
    return { action, changed, status: await kernel.migrator.status() }
  } finally {
    await kernel.close()
  }
}

/** Runs every plugin's seeders. */
export async function seed(
  options: BootRequest & { progress?: (message: string) => void },
): Promise<{ plugins: string[] }> {
  const kernel = await bootKernel({ logger: createLogger('warn', 2), ...options })
  try {
    if ((await kernel.pendingMigrations()).length) {
      throw new Error('migrations are pending: run "mediactl migrate" before seeding')
    }
    const plugins: string[] = []
    await kernel.seed((plugin) => {
      plugins.push(plugin)
      options.progress?.(`seeding ${plugin}`)
    })
    return { plugins }
  } finally {
    await kernel.close()
  }
}
