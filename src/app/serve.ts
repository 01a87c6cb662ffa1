import type { Server } from 'node:http'
import { type Kernel, type Listening, type Logger, UserError, listenWhileStarting } from '../kernel/index.js'
import { type BootRequest, readConfig, requireSecret, withKernel } from './boot.js'
import { type InitOptions, type InitResult, initInstance } from './init.js'

export class PendingMigrationsError extends UserError {
  override name = 'PendingMigrationsError'
}

export interface ServeOptions extends BootRequest {
  port?: number
  host?: string
  /** Apply pending migrations before serving instead of refusing. */
  migrate?: boolean
  /** Initialize the instance first when needed (implies migrate). */
  init?: Omit<InitOptions, keyof BootRequest>
  /**
   * In an HTTP process of `serve --processes N` (serve-cluster.ts), its number from 1: the
   * primary serves the metrics of all, and process 1 alone runs the jobs.
   */
  httpProcess?: number
  /**
   * Whether the port is bound before the kernel boots, answering probes while the process starts
   * (default true; a restarted HTTP process of a cluster does not: its siblings serve meanwhile).
   */
  listenWhileStarting?: boolean
  /**
   * Awaited once the port is bound, before the kernel boots: an HTTP process of a cluster waits
   * there for the primary to apply the migrations.
   */
  beforeBoot?: () => Promise<void>
}

export interface Serving extends Listening {
  kernel: Kernel
  initialized?: InitResult
  /** Whether this process runs jobs (a queue backend that consumes in `serve`, and declared jobs). */
  jobs: boolean
  /** Stops gracefully (stop accepting, finish requests in flight, put jobs in flight back, close the database). */
  stop(): Promise<void>
}

/**
 * The pending migrations at start: applied with `--migrate` (or `init`), else refused with
 * what to run (one process applies them: `serve`, or the primary of `serve --processes N`).
 */
export async function migrateAtStart(
  kernel: Kernel,
  options: { migrate?: boolean; init?: unknown },
  log: Pick<Logger, 'info'>,
): Promise<void> {
  const pending = await kernel.pendingMigrations()
  if (!pending.length) return
  if (!options.migrate && !options.init) {
    throw new PendingMigrationsError(
      `${pending.length} migration(s) pending (${pending.join(', ')}): run "mediactl migrate" first, or start with "mediactl serve --migrate"`,
    )
  }
  await kernel.migrator.up((m) => log.info({ migration: m.name }, 'migrating'))
}

/**
 * Serves HTTP: binds the port at once (answering `/health`, and 503 with `Retry-After` to the
 * rest, while starting), boots the kernel, waits for the database and Redis (within
 * `database.connect_wait` / `redis_connect_wait`, starting over if one is lost meanwhile),
 * refuses while migrations are pending unless asked to apply them, then hands the port to the
 * pipeline. Once serving, runs the jobs when the queue backend consumes in `serve`
 * (queue-inline; with queue-bullmq, `mediactl worker` processes do).
 */
export async function serve(options: ServeOptions): Promise<Serving> {
  const { http } = readConfig(options)
  const port = options.port ?? http.port
  const host = options.host ?? http.host
  const starting =
    options.listenWhileStarting === false
      ? undefined
      : await listenWhileStarting(http, port, host, options.logger, options.httpProcess?.toString())
  try {
    const initialized = options.init ? await initInstance({ ...options, ...options.init }) : undefined
    await options.beforeBoot?.()
    return await withKernel({ ...options, pending: 'allow', keepOpen: true }, async (kernel) => {
      await kernel.whileStarting(async () => {
        // Once the database answered: a missing database is the first thing to fix (init makes the secret too).
        requireSecret(options)
        await migrateAtStart(kernel, options, kernel.log)
      })
      if (options.httpProcess) kernel.nameProcess(String(options.httpProcess))
      const listening = await kernel.listen(port, host, starting)
      if (options.httpProcess) kernel.shareMetrics()
      else await kernel.serveMetrics()
      const { ports } = kernel.services
      // The reconciler runs in every serving process; the jobs themselves only where the transport says so.
      const consume = ports.has('queue') && ports.get('queue').consumesInServe && (options.httpProcess ?? 1) === 1
      const jobs = (await kernel.startJobs({ consume })) && consume
      return { ...listening, kernel, initialized, jobs, stop: () => kernel.close() }
    })
  } catch (error) {
    if (starting) await closeStarting(starting.server)
    throw error
  }
}

/** Closes the port bound while starting, cutting whoever waits on it (a failed start answers nothing more). */
function closeStarting(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    server.closeAllConnections()
  })
}
