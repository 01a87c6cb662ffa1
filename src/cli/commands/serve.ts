import cluster from 'node:cluster'
import { Flags } from '@oclif/core'
import { readConfig } from '../../app/boot.js'
import { guardProcess, stopOnSignal } from '../../app/process-guards.js'
import { type ServeOptions, serve } from '../../app/serve.js'
import {
  EXIT_REFUSED,
  announceServing,
  httpProcessNumber,
  httpProcesses,
  listensWhileStarting,
  migratedByPrimary,
  serveCluster,
} from '../../app/serve-cluster.js'
import type { InitResult } from '../../app/init.js'
import { DependencyUnavailableError, createLogger } from '../../kernel/index.js'
import { BaseCommand, userMistake } from '../base-command.js'
import { curlExample } from '../format.js'

export default class Serve extends BaseCommand<typeof Serve> {
  static override summary = 'Serve the HTTP API.'
  static override description = `Refuses to start while migrations are pending, unless --migrate (or --init) is given.
Binds the port at once and waits for the database and Redis (database.connect_wait, redis_connect_wait); past the wait it exits with code 69.
SIGTERM or SIGINT stops it gracefully: no new connections, requests in flight finish, the database closes.
With --processes N (or http.processes), N processes share the port; on PostgreSQL the default is one per CPU core.`

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 9000 --migrate',
    '<%= config.bin %> serve --init',
    '<%= config.bin %> serve --processes 4',
  ]

  static override flags = {
    port: Flags.integer({ char: 'p', description: 'TCP port [default: http.port, 8080]', min: 0, max: 65535 }),
    host: Flags.string({ char: 'h', description: 'Interface to listen on [default: http.host, 0.0.0.0]' }),
    processes: Flags.integer({
      description:
        'HTTP processes sharing the port [default: http.processes; 0: one on SQLite, one per CPU core on PostgreSQL]',
      min: 0,
      max: 256,
    }),
    migrate: Flags.boolean({ description: 'Apply pending migrations before serving' }),
    init: Flags.boolean({ description: 'Initialize the instance first when needed (what "npm start" does)' }),
  }

  async run() {
    const http: Record<string, unknown> = {}
    if (this.flags.port !== undefined) http.port = this.flags.port
    if (this.flags.host !== undefined) http.host = this.flags.host
    if (this.flags.processes !== undefined) http.processes = this.flags.processes
    const configOptions = this.configOptions(Object.keys(http).length ? { http } : {})
    const options: ServeOptions = {
      ...configOptions,
      // With --json, stdout carries only the JSON line: the log goes to stderr.
      logger: this.jsonEnabled() ? createLogger(readConfig(configOptions).log_level, 2) : undefined,
      migrate: this.flags.migrate,
      init: this.flags.init
        ? {
            adminUsername: 'admin',
            adminEmail: 'admin@localhost.localdomain',
            platformName: 'Default',
            progress: (m) => this.progress(m),
          }
        : undefined,
    }
    const httpProcess = httpProcessNumber()
    if (httpProcess) {
      // Its log lines say which process wrote them (the primary's name every process in its own).
      const logger = (options.logger ?? createLogger(readConfig(configOptions).log_level)).child({
        http_process: httpProcess,
      })
      return this.serveInCluster({ ...options, logger, init: undefined, migrate: false, httpProcess })
    }
    const processes = httpProcesses(readConfig(configOptions))
    if (processes > 1) {
      const serving = await serveCluster({ ...options, processes })
      const stopped = stopOnSignal(() => serving.stop())
      this.announce(serving.url, serving.publicUrl, processes, serving.initialized)
      await Promise.race([stopped, serving.failed])
    } else {
      const serving = await serve(options)
      guardProcess(serving.kernel.log)
      // Catch the signals before announcing readiness: whoever waits for the line below may stop us at once.
      const stopped = stopOnSignal(() => serving.stop(), serving.kernel.log)
      this.announce(serving.url, serving.kernel.services.links.url(), 1, serving.initialized)
      await stopped
    }
    this.log('mediactl stopped.')
  }

  /**
   * One HTTP process of `serve --processes N`: it serves, and the primary speaks for the cluster.
   * A refusal no restart fixes exits 78, for the primary to stop them all; a dependency that did
   * not answer exits 69 and anything else 1, and the primary starts the process again.
   */
  private async serveInCluster(options: ServeOptions): Promise<void> {
    const serving = await serve({
      ...options,
      listenWhileStarting: listensWhileStarting(),
      beforeBoot: migratedByPrimary,
    }).catch((error: unknown) => {
      if (userMistake(error) && !(error instanceof DependencyUnavailableError))
        Object.assign(error as Error, { exitCode: EXIT_REFUSED })
      throw error
    })
    guardProcess(serving.kernel.log)
    const stopped = stopOnSignal(() => serving.stop(), serving.kernel.log)
    announceServing(serving.url, serving.kernel.services.links.url().replace(/\/$/, ''))
    await stopped
    // The channel to the primary keeps the process alive: close it to exit.
    cluster.worker?.disconnect()
  }

  private announce(url: string, publicBase: string, processes: number, initialized?: InitResult): void {
    const publicUrl = publicBase.replace(/\/$/, '')
    const admin = initialized?.admin
    if (admin) {
      this.log(`Installation administrator: ${admin.username}`)
      this.log(`API key (shown once, keep it): ${admin.apiKey}`)
      if (admin.signInLink)
        this.log(`Console sign-in link (once, until ${admin.signInLink.expiresAt}): ${admin.signInLink.url}`)
      this.log(`Try: ${curlExample(admin.username, admin.apiKey, publicUrl)}`)
    }
    const many = processes > 1 ? ` with ${processes} processes` : ''
    this.log(`mediactl serving on ${url} (public URL ${publicUrl})${many}; stop with Ctrl-C`)
    if (this.jsonEnabled()) {
      process.stdout.write(
        JSON.stringify({
          url,
          public_url: publicUrl,
          ...(processes > 1 ? { processes } : {}),
          ...(admin ? { username: admin.username, api_key: admin.apiKey } : {}),
          ...(admin?.signInLink ? { sign_in_link: admin.signInLink.url } : {}),
        }) + '\n',
      )
    }
  }
}
