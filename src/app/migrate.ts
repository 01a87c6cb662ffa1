import { type MigrationStatus, UserError } from '../kernel/index.js'
import { type BootRequest, withKernel } from './boot.js'

export type MigrateAction = 'up' | 'down' | 'status'

export interface MigrateResult {
  action: MigrateAction
  /** Migrations applied (up) or reverted (down). */
  changed: string[]
  status: MigrationStatus[]
}

/** Applies, reverts (`steps` at a time) or lists the plugins' migrations. */
export function migrate(
  action: MigrateAction,
  options: BootRequest & { steps?: number; progress?: (message: string) => void },
): Promise<MigrateResult> {
  return withKernel({ ...options, pending: 'allow' }, async (kernel) => {
    const say = options.progress ?? (() => undefined)
    let changed: string[] = []
    if (action === 'up') changed = await kernel.migrator.up((m) => say(`applying ${m.name} (${m.plugin})`))
    if (action === 'down')
      changed = await kernel.migrator.down(options.steps ?? 1, (m) => say(`reverting ${m.name} (${m.plugin})`))
    return { action, changed, status: await kernel.migrator.status() }
  })
}

/** Runs every plugin's seeders. */
export function seed(options: BootRequest & { progress?: (message: string) => void }): Promise<{ plugins: string[] }> {
  return withKernel({ ...options, pending: 'allow' }, async (kernel) => {
    if ((await kernel.pendingMigrations()).length) {
      throw new UserError('migrations are pending: run "mediactl migrate" before seeding')
    }
    const plugins: string[] = []
    await kernel.seed((plugin) => {
      plugins.push(plugin)
      options.progress?.(`seeding ${plugin}`)
    })
    return { plugins }
  })
}
