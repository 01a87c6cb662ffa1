import { purgeCommand } from '../../app/purge.js'
import { BaseCommand } from '../base-command.js'

export default class Purge extends BaseCommand<typeof Purge> {
  static override summary = 'Remove what abandoned work left behind: expired uploads, bytes of deleted files.'
  static override description =
    'Serving processes do this on their own schedule (files.purge_schedule); run it from cron when that is off. Safe to run while serving.'

  async run() {
    const result = await purgeCommand(this.configOptions())
    const lines = Object.entries(result.removed).map(([what, count]) => `  ${what}: ${count}`)
    this.log(['Removed:', ...lines].join('\n'))
    return result
  }
}
