import { Args } from '@oclif/core'
import { rotateKeyCommand } from '../../app/users.js'
import { BaseCommand } from '../base-command.js'

export default class UserKey extends BaseCommand<typeof UserKey> {
  static override summary = "Rotate a user's API key and print the new one once."
  static override description = `The old key stops working at once. The key is bound to the username (Digest HA1), so a user
whose username changes needs a new key: run this command after renaming.`

  static override examples = ['<%= config.bin %> user key alice', '<%= config.bin %> user key alice --json']

  static override args = {
    username: Args.string({ description: 'The user whose key to rotate', required: true }),
  }

  async run() {
    const result = await rotateKeyCommand({ ...this.configOptions(), username: this.args.username })
    this.log(`New API key for ${result.username} (shown once, keep it): ${result.api_key}`)
    // On stderr, so stdout stays the key line that scripts read.
    this.progress(`The key is bound to the username: if ${result.username} is renamed, run this command again.`)
    return result
  }
}
