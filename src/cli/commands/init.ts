import { createInterface } from 'node:readline/promises'
import { Flags } from '@oclif/core'
import { initInstance } from '../../app/init.js'
import { BaseCommand } from '../base-command.js'
import { curlExample } from '../format.js'

export default class Init extends BaseCommand<typeof Init> {
  static override summary = 'Initialize an instance: data dir, config, secret, keys, database, first administrator.'
  static override description = `Each step runs only when needed, so running it again on an initialized instance changes nothing and says so.
The administrator's API key is printed once: keep it, it cannot be shown again (rotate it with "mediactl user key").
Without the --admin-* flags, init asks for them when run in a terminal.`

  static override examples = [
    '<%= config.bin %> init',
    '<%= config.bin %> init --admin-username alice --admin-email alice@example.org --json',
  ]

  static override flags = {
    'admin-username': Flags.string({
      description: 'Username of the first installation administrator [default: admin]',
    }),
    'admin-email': Flags.string({
      description: 'E-mail of the first administrator [default: admin@localhost.localdomain]',
    }),
    'admin-password': Flags.string({
      description: 'Password of the first administrator (optional: the API key is what authenticates)',
    }),
    'platform-name': Flags.string({ description: 'Name of the first platform', default: 'Default' }),
    'create-database': Flags.boolean({
      description: 'Create the PostgreSQL database of database.url when it does not exist (never done otherwise)',
      default: false,
    }),
  }

  private async ask(question: string, fallback: string): Promise<string> {
    const rl = createInterface({ input: process.stdin, output: process.stderr })
    try {
      return (await rl.question(`${question} [${fallback}]: `)).trim() || fallback
    } finally {
      rl.close()
    }
  }

  async run() {
    const interactive = process.stdin.isTTY && !this.jsonEnabled()
    let username = this.flags['admin-username']
    let email = this.flags['admin-email']
    if (interactive && !username) username = await this.ask('Administrator username', 'admin')
    if (interactive && !email) email = await this.ask('Administrator e-mail', 'admin@localhost.localdomain')
    const result = await initInstance({
      ...this.configOptions(),
      adminUsername: username ?? 'admin',
      adminEmail: email ?? 'admin@localhost.localdomain',
      adminPassword: this.flags['admin-password'],
      platformName: this.flags['platform-name'],
      createDatabase: this.flags['create-database'],
      progress: (m) => this.progress(m),
    })
    if (!result.changed) this.log(`Already initialized (${result.dataDir}): nothing changed.`)
    this.log(`Public key for password checks (GET /authentication/public_key): ${result.publicKeyFile}`)
    if (result.admin) {
      this.log(`\nInstallation administrator: ${result.admin.username}`)
      this.log(`API key (shown once, keep it): ${result.admin.apiKey}`)
      const link = result.admin.signInLink
      if (link) this.log(`Console sign-in link (once, until ${link.expiresAt}): ${link.url}`)
      this.log(`URL: ${result.url}`)
      this.log(`Try: ${curlExample(result.admin.username, result.admin.apiKey, result.url)}`)
    }
    return {
      changed: result.changed,
      steps: result.steps,
      data_dir: result.dataDir,
      config_file: result.configFile,
      url: result.url,
      public_key: result.publicKeyFile,
      ...(result.admin
        ? {
            username: result.admin.username,
            api_key: result.admin.apiKey,
            platform: result.admin.platform,
            ...(result.admin.signInLink ? { sign_in_link: result.admin.signInLink.url } : {}),
          }
        : {}),
    }
  }
}
