import { seed } from '../../app/migrate.js'
import { BaseCommand } from '../base-command.js'

export default class Seed extends BaseCommand<typeof Seed> {
  static override summary = 'Create missing default rows (profiles of every platform, ...).'
  static override description = 'Idempotent: running it again creates nothing new.'

  async run() {
    const result = await seed({ ...this.configOptions(), progress: (m) => this.progress(m) })
    this.log('Seeds are in place.')
    return result
  }
}
