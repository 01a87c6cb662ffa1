import { Flags } from '@oclif/core'
import { createUserCommand } from '../../app/users.js'
import { BaseCommand } from '../base-command.js'

export default class UserCreate extends BaseCommand<typeof UserCreate> {
  static override summary = 'Create a user and print its API key once.'
  static override description = `The API key authenticates the user (HTTP Digest, username and API key). It is shown once and
never stored: keep it, or rotate it with "mediactl user key <username>".
Without --profile the user gets the platform's least-privileged profile (Viewer on a new platform);
--admin makes an installation administrator (every profile flag). The fields follow the rules of
POST /platform/<slug>/users (docs/api/identity.md), and the platform's max_users applies.`

  static override examples = [
    '<%= config.bin %> user create --platform default --username alice --email alice@example.org',
    '<%= config.bin %> user create --platform default --username carol --email carol@example.org --profile default-publisher',
    '<%= config.bin %> user create --platform default --username root2 --email ops@example.org --admin --json',
  ]

  static override flags = {
    platform: Flags.string({ description: 'Slug of the platform the user belongs to', required: true }),
    profile: Flags.string({
      description:
        "Slug of the user's profile (a wrong one lists the platform's profiles) [default: the platform's least-privileged profile]",
    }),
    username: Flags.string({
      description:
        'Login name, unique across the installation: at most 128 letters, digits, ".", "_", "-" or "@", starting with a letter or a digit',
      required: true,
    }),
    email: Flags.string({ description: 'E-mail address, unique on the platform', required: true }),
    password: Flags.string({
      description: 'Password (at most 128 characters), for the password check endpoint (optional)',
    }),
    admin: Flags.boolean({ description: 'Make an installation administrator' }),
  }

  async run() {
    const result = await createUserCommand({ ...this.configOptions(), ...this.flags })
    this.log(`Created user ${result.username} on platform ${result.platform} (profile ${result.profile}).`)
    this.log(`API key (shown once, keep it): ${result.api_key}`)
    return result
  }
}
