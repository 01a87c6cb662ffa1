import { Args, Flags } from '@oclif/core'
import { type PlatformChanges, updatePlatformCommand } from '../../app/platforms.js'
import type { TimestampDialect } from '../../kernel/index.js'
import { BaseCommand } from '../base-command.js'

export default class PlatformUpdate extends BaseCommand<typeof PlatformUpdate> {
  static override summary = "Change a platform: its name, quotas, or the date-time dialect of its clients' answers."
  static override description = `Only the flags given change. --timestamps unix makes every answer to this platform's users carry
date-times as Unix seconds (as the original hosted service did, for clients that parse them as integers);
--timestamps default goes back to the installation's api.timestamps.`

  static override examples = [
    '<%= config.bin %> platform update campus-tv --timestamps unix',
    '<%= config.bin %> platform update campus-tv --max-space 107374182400',
  ]

  static override args = {
    slug: Args.string({ description: 'Slug of the platform', required: true }),
  }

  static override flags = {
    name: Flags.string({ description: 'New name (at most 255 characters); the slug stays' }),
    'max-users': Flags.integer({ description: 'Most users; 0 is unlimited', min: 0 }),
    'max-space': Flags.integer({ description: 'Most bytes for all files; 0 is unlimited', min: 0 }),
    timestamps: Flags.string({
      description: "How date-times are answered to this platform's clients; default: the installation's api.timestamps",
      options: ['iso8601', 'unix', 'default'],
    }),
  }

  async run() {
    const { name, timestamps } = this.flags
    if (name !== undefined && ([...name].length > 255 || name.trim() === '')) {
      this.error('--name must be 1 to 255 characters', { exit: 1 })
    }
    const changes: PlatformChanges = {
      name,
      maxUsers: this.flags['max-users'],
      maxSpace: this.flags['max-space'],
      timestamps:
        timestamps === undefined ? undefined : timestamps === 'default' ? null : (timestamps as TimestampDialect),
    }
    if (Object.values(changes).every((value) => value === undefined)) {
      this.error('Nothing to change: give --name, --max-users, --max-space or --timestamps', { exit: 1 })
    }
    const result = await updatePlatformCommand({ ...this.configOptions(), slug: this.args.slug, changes })
    if (!result) this.error(`No platform "${this.args.slug}": list them with GET /platforms`, { exit: 1 })
    this.log(
      `Updated platform ${result.slug}: timestamps ${result.timestamps ?? 'default (api.timestamps)'}, ${result.url}`,
    )
    return result
  }
}
