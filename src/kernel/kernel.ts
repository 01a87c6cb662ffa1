import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { EntitySchema } from '@mikro-orm/core'
import { Authz } from './authz/authz.service.js'
import type { Config } from './config/schema.js'
import { warnRetiredKeys } from './config/retired-keys.js'
import { validatePlugins } from './config/validate.js'
import { Migrator, type OwnedMigration } from './db/migrator.js'
import {
  type EntityManager,
  type Orm,
  databaseTarget,
  entityTables,
  knexOf,
  openOrm,
  unfixableDatabaseError,
} from './db/orm.js'
import { Caches } from './cache/caches.js'
import { openReader } from './cache/reader.js'
import { transaction } from './db/transaction.js'
import { type Emit, EventBus } from './events.js'
import { createRequestListener } from './http/app.js'
import { digestAuthenticator } from './http/authenticator.js'
import { createHttpServer } from './http/server.js'
import { LinkBuilder } from './http/links.js'
import { JobEntity } from './jobs/job.entity.js'
import { JobRegistry, jobConcurrency } from './jobs/job-registry.js'
import { Jobs } from './jobs/jobs.js'
import { JOBS_MIGRATIONS } from './jobs/migrations/index.js'
import { RouteTable } from './http/router.js'
import { readSecret } from './instance.js'
import { listenOn } from './http/listen.js'
import { PROCESS_HEADER, type StartingServer } from './http/starting-server.js'
import { probeRoutes } from './http/probes.routes.js'
import { isOutage, outageOf } from './http/outage.js'
import { Readiness } from './readiness.js'
import { waitForDependencies } from './start-wait.js'
import { Metrics } from './metrics/metrics.js'
import { MetricsRegistry } from './metrics/metrics-registry.js'
import { shareMetricsWithPrimary } from './metrics/metrics-cluster.js'
import { listenMetrics } from './metrics/metrics-server.js'
import { InFlight } from './http/in-flight.js'
import { type Logger, createLogger } from './log.js'
import { type PluginCatalog, type PluginContext, type PluginDefinition, type Seeder } from './plugin.js'
import { PluginServices, type ServiceKey } from './plugin-services.js'
import { pluginContext } from './plugin-context.js'
import { PortRegistry } from './ports.js'
import { type KernelState, type SharedState, openSharedState } from './state/shared-state.js'
import { STATE_MIGRATIONS } from './state/state-migrations.js'
import type { KernelServices } from './services.js'
import { type Tokens, tokensWith } from './signed-token.js'

export interface BootOptions {
  /** The validated configuration (see loadConfig). */
  config: Config
  /** Every plugin available; `config.plugins` picks which are enabled (and only those are loaded). */
  catalog: PluginCatalog
  /** Logger to use instead of one made from `log_level`. */
  logger?: Logger
}

/** How `startJobs` runs jobs; unset fields come from the `jobs` config section. */
export interface StartJobsOptions {
  /** Whether this process runs jobs (default true); false starts the reconciler only. */
  consume?: boolean
  /** Most jobs this process runs at once (default `jobs.concurrency`, 0 meaning one per two cores). */
  concurrency?: number
}

export interface Listening {
  server: Server
  /** The URL the server answers on (from the bound address). */
  url: string
}

/**
 * The kernel: config → plugins (dependency order) → ORM with their entities → their
 * registrations → ports check. It owns the HTTP pipeline and knows no resource family.
 */
export class Kernel {
  readonly routes = new RouteTable()
  /** The job types the plugins declared (`ctx.job`). */
  readonly jobTypes = new JobRegistry()
  /** The jobs: queued, run, listed, retried and cancelled through here. */
  readonly jobs: Jobs
  /** The dependencies `GET /ready` checks: the database, and what plugins declare (`ctx.ready`). */
  readonly readiness = new Readiness()
  private readonly seeders: { plugin: string; run: Seeder }[] = []
  private readonly stoppers: { plugin: string; stop: () => Promise<void> | void }[] = []
  private readonly starters: { plugin: string; start: () => Promise<void> | void }[] = []
  private readonly hostResolvers: ((host: string) => Promise<string | null>)[] = []
  /** What plugins expose to the plugins that depend on them (`ctx.expose`, `ctx.use`). */
  private readonly pluginServices = new PluginServices()
  private server: Server | undefined
  /** The process's metrics registry: the kernel's metrics and the plugins' (`ctx.metrics`), from boot. */
  private readonly metricsRegistry = new MetricsRegistry()
  private readonly metrics: Metrics
  /** The request handlers still running (a cut request's handler outlives its response). */
  readonly inFlight = new InFlight()
  /** The metrics listener, once `serveMetrics` started it. */
  private metricsServer: Server | undefined
  private closing = false
  /** Headers of the probes' answers: the process's name in a cluster (`nameProcess`). */
  private probeHeaders: Record<string, string> = {}
  /** The kernel's nonce counts and locks, where no plugin provides them (`state`). */
  private sharedState: SharedState | undefined
  /** Whether `startJobs` started the jobs module in this process. */
  private jobsStarted = false
  private closed: Promise<void> | undefined
  /** Signs and checks with the server secret, for plugins (`ctx.tokens`). */
  private readonly tokens: Tokens
  /** The change feed of the process caches (`ctx.cache`): live once serving (cache/README.md). */
  private readonly caches: Caches

  private constructor(
    readonly services: KernelServices,
    readonly plugins: PluginDefinition<never>[],
    readonly migrator: Migrator,
  ) {
    const { config, ports } = services
    this.tokens = tokensWith(services.secret)
    this.jobs = new Jobs(
      knexOf(services.orm),
      databaseTarget(config).dialect,
      () => this.em(),
      this.jobTypes,
      () => (ports.has('queue') ? ports.get('queue') : undefined),
      {
        maxAttempts: config.jobs.max_attempts,
        leaseMs: config.jobs.lease * 1000,
        reconcileMs: config.jobs.reconcile_interval * 1000,
        keepFinishedMs: config.jobs.keep_finished * 1000,
      },
      services.log.child({ module: 'jobs' }),
    )
    const knex = knexOf(services.orm)
    this.metrics = new Metrics(this.metricsRegistry.registry, this.jobs, knex)
    this.caches = new Caches(config, services.log)
    this.readiness.add('database', () => knex.raw('select 1'), {
      seconds: config.database.connect_wait,
      setting: 'database.connect_wait',
      unfixable: (error) => unfixableDatabaseError(config, error),
    })
    probeRoutes(
      this.routes.forPlugin('kernel'),
      this.readiness,
      () => this.closing,
      () => this.probeHeaders,
    )
  }

  /** Emits an event to the plugins' handlers (work outside a request: CLI operations, tests). */
  readonly emit: Emit = (event, payload) => this.services.events.emit(event, payload)

  get config(): Config {
    return this.services.config
  }

  get log(): Logger {
    return this.services.log
  }

  get orm(): Orm {
    return this.services.orm
  }

  /** What a plugin exposed under `key` (`ctx.expose`), for the CLI and tests, which see every plugin. */
  exposed<T>(key: ServiceKey<T>): T {
    return this.pluginServices.exposed(key)
  }

  /** Whether this process's caches (`ctx.cache`) serve now: a serving process with its change feed live. */
  get cachesLive(): boolean {
    return this.caches.live
  }

  /** A fresh EntityManager for work outside requests. */
  em(): EntityManager {
    return this.orm.em.fork() as EntityManager
  }

  static async boot(options: BootOptions): Promise<Kernel> {
    const { config } = options
    const log = options.logger ?? createLogger(config.log_level)
    warnRetiredKeys(config, log)
    const { catalog } = options
    const { plugins, slices } = await validatePlugins(config, catalog)

    // The kernel's own tables (jobs) come first: plugins' rows refer to nothing of them.
    const entities = [JobEntity as EntitySchema, ...plugins.flatMap((p) => (p.entities ?? []) as EntitySchema[])]
    const orm = await openOrm(config, entities, log)
    const migrations: OwnedMigration[] = [
      ...[...JOBS_MIGRATIONS, ...STATE_MIGRATIONS].map((m) => ({ ...m, plugin: 'kernel' })),
      ...plugins.flatMap((p) => (p.migrations ?? []).map((m) => ({ ...m, plugin: p.name }))),
    ]
    const reader = openReader(databaseTarget(config), knexOf(orm))
    const ports = new PortRegistry()
    const services: KernelServices = {
      config,
      log,
      orm,
      reader,
      authz: new Authz(reader, ports),
      links: new LinkBuilder(config.base_url || `http://${displayHost(config.http.host)}:${config.http.port}`),
      events: new EventBus(log),
      ports,
      secret: readSecret(config) ?? '',
    }
    // Every table of the plugins' entities is watched for the caches (not the kernel's jobs: no cache reads them).
    const watched = () => entityTables(orm, ['jobs'])
    const kernel = new Kernel(services, plugins, new Migrator(knexOf(orm), migrations, watched))
    try {
      kernel.provideSharedState()
      for (const plugin of plugins) {
        try {
          await plugin.register(kernel.contextFor(plugin, slices.get(plugin.name)) as never)
        } catch (error) {
          // Which plugin failed to start, for `mediactl doctor` to put the blame on the right line.
          if (error instanceof Error) Object.assign(error, { plugin: plugin.name })
          throw error
        }
      }
      if (kernel.jobTypes.size && !services.ports.has('queue')) {
        throw new Error(
          `jobs are declared (${kernel.jobTypes.describe()}) but no queue backend is enabled: enable queue-inline or queue-bullmq in the "plugins" config key`,
        )
      }
      services.ports.check()
    } catch (error) {
      await kernel.sharedState?.close()
      services.reader.close()
      await orm.close(true)
      throw error
    }
    return kernel
  }

  /**
   * Nonce counts and locks: the kernel's own (`state: database` by default, or `memory`) for each
   * of the two ports no enabled plugin declares in its `provides` (state-redis declares both).
   * Before the plugins register, so each finds the port there.
   */
  private provideSharedState(): void {
    const { ports, config, log } = this.services
    const declared = new Set(this.plugins.flatMap((p) => p.provides ?? []))
    const missing = (['nonceCounter', 'locks'] as const).filter((port) => !declared.has(port))
    if (!missing.length) return
    const kind: KernelState = config.state === 'memory' ? 'memory' : 'database'
    const state = openSharedState(kind, databaseTarget(config), config.database, log)
    this.sharedState = state
    for (const port of missing) ports.provide('kernel', port, state[port])
  }

  private contextFor(plugin: PluginDefinition<never>, config: unknown): PluginContext<unknown> {
    return pluginContext(plugin, config, {
      services: this.services,
      tokens: this.tokens,
      metrics: this.metricsRegistry,
      routes: this.routes,
      pluginServices: this.pluginServices,
      jobTypes: this.jobTypes,
      jobs: this.jobs,
      readiness: this.readiness,
      seeders: this.seeders,
      stoppers: this.stoppers,
      starters: this.starters,
      hostResolvers: this.hostResolvers,
      em: () => this.em(),
      changes: this.caches.changes,
    })
  }

  /**
   * Starts the jobs module in this process (`serve`, `mediactl worker`): the reconciler, and
   * running the declared jobs as the queue port delivers them unless `consume` is false,
   * until `close`. Answers false, doing nothing, when no plugin declares jobs or no queue
   * backend is enabled; true once started (consuming or not).
   */
  async startJobs(options: StartJobsOptions = {}): Promise<boolean> {
    if (this.jobsStarted) throw new Error('jobs are already running in this process')
    if (this.closing) throw new Error('the kernel is closing')
    if (!this.jobTypes.size || !this.services.ports.has('queue')) return false
    const { jobs } = this.config
    const consume = options.consume ?? true
    await this.jobs.start(
      consume
        ? {
            concurrency: options.concurrency ?? jobConcurrency(jobs.concurrency),
            timeLimitMs: jobs.time_limit * 1000,
            backoffMs: jobs.backoff * 1000,
          }
        : undefined,
    )
    this.jobsStarted = true
    if (consume) this.log.info({ types: this.jobTypes.describe() }, 'running jobs')
    return true
  }

  /** Runs every plugin's seeders, in plugin order, each in its own transaction. */
  async seed(onEach?: (plugin: string) => void): Promise<void> {
    for (const seeder of this.seeders) {
      onEach?.(seeder.plugin)
      await transaction(this.em(), (em) => seeder.run(em))
    }
  }

  /**
   * Waits until the database and the dependencies plugins declared with a start wait (Redis)
   * answer, each within its setting (`database.connect_wait`, `redis_connect_wait`); rejects
   * with a DependencyUnavailableError naming the first that did not (start-wait.ts).
   */
  waitForDependencies(): Promise<void> {
    return waitForDependencies(this.readiness.startDependencies, { log: this.log })
  }

  /**
   * Runs a step of a starting process (`serve`, `worker`, `init`: migrations and their check)
   * once the dependencies answer, and again each time it fails on an outage (the database lost
   * while starting), after waiting for them again. Any other failure is thrown.
   */
  async whileStarting<T>(step: () => Promise<T>): Promise<T> {
    for (;;) {
      await this.waitForDependencies()
      try {
        return await step()
      } catch (error) {
        if (!isOutage(error)) throw error
        this.log.warn(
          { err: (error as Error).message, dependency: outageOf(error) },
          'dependency lost while starting; waiting for it again',
        )
      }
    }
  }

  /** Names of migrations not applied yet. */
  async pendingMigrations(): Promise<string[]> {
    return (await this.migrator.pending()).map((m) => m.name)
  }

  /** The request listener (for tests or embedding in another server). */
  requestListener(): ReturnType<typeof createRequestListener> {
    return createRequestListener({
      services: this.services,
      routes: this.routes,
      auth: digestAuthenticator(this.services),
      catchUp: () => this.caches.catchUp(),
      isClosing: () => this.closing,
      inFlight: this.inFlight,
      observe: (request) => this.metrics.observe(request),
      hostPrefix: async (host) => {
        for (const resolve of this.hostResolvers) {
          const prefix = await resolve(host)
          if (prefix) return prefix
        }
        return null
      },
    })
  }

  /** In an HTTP process of a cluster: its number, which the probes answer in `X-Mediactl-Process`. */
  nameProcess(name: string): void {
    this.probeHeaders = { [PROCESS_HEADER]: name }
  }

  /**
   * Starts the metrics listener when `metrics.port` is set (`serve` and `mediactl worker`);
   * answers its URL, or null when metrics are off. Closed by `close`.
   */
  async serveMetrics(): Promise<string | null> {
    const { port, host } = this.config.metrics
    if (!port || this.metricsServer) return null
    this.metrics.collectProcess()
    const { server, url } = await listenMetrics(this.metricsRegistry, port, host)
    this.metricsServer = server
    this.log.info({ url }, 'metrics served')
    return url
  }

  /**
   * In an HTTP process of `serve --processes N`: no listener of its own; the primary serves the
   * sum of every process's metrics on `metrics.port` (metrics-cluster.ts).
   */
  shareMetrics(): void {
    this.metrics.collectProcess()
    shareMetricsWithPrimary(this.metricsRegistry.registry)
  }

  /**
   * Starts the HTTP server, or takes over the one that answered while the process started
   * (`listenWhileStarting`: same socket, now with the pipeline).
   */
  async listen(
    port = this.config.http.port,
    host = this.config.http.host,
    starting?: StartingServer,
  ): Promise<Listening> {
    let server: Server
    let address: AddressInfo
    if (starting) {
      ;({ server, address } = starting)
      starting.handOver(this.requestListener())
    } else {
      server = createHttpServer(this.requestListener(), this.config.http, this.services.log)
      address = await listenOn(server, port, host, {
        port: 'http.port (MEDIACTL_PORT, serve --port)',
        host: 'http.host (MEDIACTL_HOST, serve --host)',
      })
    }
    this.server = server
    const url = `http://${displayHost(host)}:${address.port}`
    this.caches.start(knexOf(this.orm))
    if (!this.config.base_url) this.services.links.rebase(url)
    for (const { start } of this.starters) await start()
    return { server, url }
  }

  /**
   * Stops gracefully: no new connections, requests in flight finish (up to
   * http.shutdown_timeout), idle keep-alive connections close; then the jobs in flight are
   * aborted and put back for later (waiting up to http.shutdown_timeout for their handlers),
   * plugins stop in reverse order and the database closes. Calling it again waits for the
   * same close.
   */
  close(): Promise<void> {
    this.closed ??= this.shutDown()
    return this.closed
  }

  private async shutDown(): Promise<void> {
    const server = this.server
    this.closing = true
    if (server) {
      this.server = undefined
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      const timer = setTimeout(() => server.closeAllConnections(), this.config.http.shutdown_timeout * 1000)
      await closed
      clearTimeout(timer)
      // Sockets' own close events (each writes its access-log line) may still be queued.
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    const graceMs = this.config.http.shutdown_timeout * 1000
    // Handlers of cut requests may still be cleaning up with the database and storage.
    if (!(await this.inFlight.idle(graceMs))) {
      this.log.warn({ handlers: this.inFlight.count }, 'request handlers still running at shutdown')
    }
    // Before the plugins stop: handlers may still use what they provide, and the database.
    if (this.jobsStarted) {
      this.jobsStarted = false
      await this.jobs
        .stop({ graceMs, mode: this.config.jobs.shutdown })
        .catch((error: unknown) =>
          this.log.error({ err: error }, 'jobs did not stop cleanly; their leases expire and they run again'),
        )
    }
    await this.jobs.flush(graceMs)
    // Each plugin in isolation, within its own time box: one failing or hanging does not keep the others or the process.
    for (const { plugin, stop } of [...this.stoppers].reverse()) await stopPlugin(plugin, stop, graceMs, this.log)
    const metricsServer = this.metricsServer
    this.metricsServer = undefined
    if (metricsServer) {
      const closed = new Promise<void>((resolve) => metricsServer.close(() => resolve()))
      // Scrapers keep their connection open: nothing of theirs is worth waiting for.
      metricsServer.closeAllConnections()
      await closed
    }
    await this.sharedState?.close()
    await this.caches.close()
    this.services.reader.close()
    await this.orm.close(true)
  }
}

/** Runs a plugin's `onStop` within `ms`; a failure or a hang is logged, never thrown. */
async function stopPlugin(plugin: string, stop: () => Promise<void> | void, ms: number, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))
  try {
    const outcome = await Promise.race([Promise.resolve().then(stop), timedOut])
    if (outcome === 'timeout')
      log.error({ plugin, timeout_ms: ms }, 'plugin did not stop in time; shutting down without it')
  } catch (error) {
    log.error({ err: error, plugin }, 'plugin failed to stop; shutting down the others')
  } finally {
    clearTimeout(timer)
  }
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost'
  return host.includes(':') ? `[${host}]` : host
}
