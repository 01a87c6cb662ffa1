import { Args, Flags } from '@oclif/core'
import { type MigrateAction, migrate } from '../../app/migrate.js'
import { BaseCommand } from '../base-command.js'
import { table } from '../format.js'

export default class Migrate extends BaseCommand<typeof Migrate> {
  static override summary = 'Apply, revert or list database migrations.'
  static override description = `"up" (the default) applies every pending migration, each in its own transaction.
"down" reverts the most recent ones (--steps, default 1). "status" lists them all.`

  static override examples = [
    '<%= config.bin %> migrate',
    '<%= config.bin %> migrate status --json',
    '<%= config.bin %> migrate down --steps 2',
  ]

  static override args = {
    action: Args.string({ description: 'up, down or status', options: ['up', 'down', 'status'], default: 'up' }),
  }

  static override flags = {
    steps: Flags.integer({ description: 'How many migrations "down" reverts', default: 1, min: 1 }),
  }

  async run() {
    const action = this.args.action as MigrateAction
    const result = await migrate(action, {
      ...this.configOptions(),
      steps: this.flags.steps,
      progress: (m) => this.progress(m),
    })
    if (action === 'status') {
      this.log(
        table([
          ['MIGRATION', 'PLUGIN', 'APPLIED'],
          ...result.status.map((s) => [s.name, s.plugin, s.executedAt?.toISOString() ?? 'pending']),
        ]),
      )
    } else {
      this.log(
        result.changed.length
          ? `${action === 'up' ? 'Applied' : 'Reverted'} ${result.changed.length} migration(s).`
          : 'Nothing to do.',
      )
    }
    return {
      action,
      changed: result.changed,
      migrations: result.status.map((s) => ({
        name: s.name,
        plugin: s.plugin,
        executed_at: s.executedAt?.toISOString() ?? null,
      })),
    }
  }
}
