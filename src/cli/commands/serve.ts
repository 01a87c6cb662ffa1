import { Flags } from '@oclif/core'
import { readConfig } from '../../app/boot.js'
import { serve } from '../../app/serve.js'
import { createLogger } from '../../kernel/index.js'
import { guardProcess } from '../../app/process-guards.js'
import { BaseCommand } from '../base-command.js'
import { curlExample } from '../format.js'

export default class Serve extends BaseCommand<typeof Serve> {
  static override summary = 'Serve the HTTP API.'
  static override description = `Refuses to start while migrations are pending, unless --migrate (or --init) is given.
SIGTERM or SIGINT stops it gracefully: no new connections, requests in flight finish, the database closes.`

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 9000 --migrate',
    '<%= config.bin %> serve --init',
  ]

  static override flags = {
    port: Flags.integer({ char: 'p', description: 'TCP port [default: http.port, 8080]', min: 0, max: 65535 }),
    host: Flags.string({ char: 'h', description: 'Interface to listen on [default: http.host, 0.0.0.0]' }),
    migrate: Flags.boolean({ description: 'Apply pending migrations before serving' }),
    init: Flags.boolean({ description: 'Initialize the instance first when needed (what "npm start" does)' }),
  }

  async run() {
    const overrides: Record<string, unknown> = {}
    if (this.flags.port !== undefined) overrides.http = { ...(overrides.http as object), port: this.flags.port }
    if (this.flags.host !== undefined) overrides.http = { ...(overrides.http as object), host: this.flags.host }
    const serving = await serve({
      ...this.configOptions(overrides),
      // With --json, stdout carries only the JSON line: the log goes to stderr.
      logger: this.jsonEnabled() ? createLogger(readConfig(this.configOptions(overrides)).log_level, 2) : undefined,
      migrate: this.flags.migrate,
      init: this.flags.init
        ? {
            adminUsername: 'admin',
            adminEmail: 'admin@localhost.localdomain',
            platformName: 'Default',
            progress: (m) => this.progress(m),
          }
        : undefined,
    })
    guardProcess(serving.kernel.log)
    // Catch the signals before announcing readiness: whoever waits for the line below may stop us at once.
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string): void => {
        serving.kernel.log.info({ signal }, 'stopping')
        void serving.stop().then(resolve)
      }
      process.once('SIGTERM', () => stop('SIGTERM'))
      process.once('SIGINT', () => stop('SIGINT'))
    })
    const admin = serving.initialized?.admin
    const url = serving.kernel.services.links.url().replace(/\/$/, '')
    if (admin) {
      this.log(`Installation administrator: ${admin.username}`)
      this.log(`API key (shown once, keep it): ${admin.apiKey}`)
      this.log(`Try: ${curlExample(admin.username, admin.apiKey, url)}`)
    }
    this.log(`mediactl serving on ${serving.url} (public URL ${url}); stop with Ctrl-C`)
    if (this.jsonEnabled()) {
      process.stdout.write(
        JSON.stringify({
          url: serving.url,
          public_url: url,
          ...(admin ? { username: admin.username, api_key: admin.apiKey } : {}),
        }) + '\n',
      )
    }
    await stopped
    this.log('mediactl stopped.')
  }
}
