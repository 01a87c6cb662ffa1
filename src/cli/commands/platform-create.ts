import { Flags } from '@oclif/core'
import { createPlatformCommand } from '../../app/platforms.js'
import type { TimestampDialect } from '../../kernel/index.js'
import { BaseCommand } from '../base-command.js'

export default class PlatformCreate extends BaseCommand<typeof PlatformCreate> {
  static override summary = 'Create a platform (tenant) with its default profiles and roles.'
  static override examples = [
    '<%= config.bin %> platform create --name "Campus TV" --max-users 50 --max-space 107374182400',
  ]

  static override flags = {
    name: Flags.string({ description: 'Name (at most 255 characters); the slug is made from it', required: true }),
    'max-users': Flags.integer({ description: 'Most users; 0 is unlimited', default: 0, min: 0 }),
    'max-space': Flags.integer({ description: 'Most bytes for all files; 0 is unlimited', default: 0, min: 0 }),
    timestamps: Flags.string({
      description: "How date-times are answered to this platform's clients [default: api.timestamps]",
      options: ['iso8601', 'unix'],
    }),
  }

  async run() {
    if ([...this.flags.name].length > 255) this.error('--name must be at most 255 characters', { exit: 1 })
    const result = await createPlatformCommand({
      ...this.configOptions(),
      name: this.flags.name,
      maxUsers: this.flags['max-users'],
      maxSpace: this.flags['max-space'],
      timestamps: this.flags.timestamps as TimestampDialect | undefined,
    })
    this.log(`Created platform ${result.slug}: ${result.url}`)
    return result
  }
}
