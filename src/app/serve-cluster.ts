import cluster, { type Worker } from 'node:cluster'
import type { Server } from 'node:http'
import { availableParallelism } from 'node:os'
import {
  type Config,
  type Logger,
  clusterMetrics,
  createLogger,
  databaseTarget,
  listenMetrics,
  UserError,
  statePerProcess,
} from '../kernel/index.js'
import { Counter, Registry } from 'prom-client'
import { readConfig, requireSecret, withKernel } from './boot.js'
import { type InitResult, initInstance } from './init.js'
import { type ServeOptions, migrateAtStart } from './serve.js'

/** Tells an HTTP process of the cluster its number (1..N); read by `serve`, never a config key. */
export const HTTP_PROCESS_VARIABLE = 'MEDIACTL_HTTP_PROCESS'
/** Tells an HTTP process whether to bind the port while it starts (`0`: a restart, its siblings serve); never a config key. */
const LISTEN_EARLY_VARIABLE = 'MEDIACTL_HTTP_LISTEN_EARLY'

/** What an HTTP process sends the primary once it listens. */
interface ServingMessage {
  type: 'mediactl:serving'
  url: string
  publicUrl: string
}

/**
 * Several HTTP processes on adapters that keep Digest nonce counts and upload locks in each
 * process's memory: a request replayed against another process would be accepted. Refused
 * before any process starts (fail closed).
 */
export class StatePerProcessError extends UserError {
  override name = 'StatePerProcessError'
  constructor(processes: number) {
    super(
      `state: memory keeps Digest nonce counts and upload locks in each process, so with ${processes} HTTP processes a replayed request would be accepted by another one`,
      {
        hint: 'remove "state: memory" (MEDIACTL_STATE) to keep them in the database, set state: redis, or serve with one process (http.processes: 1, serve --processes 1)',
      },
    )
  }
}

/** `http.processes`, or for 0 one process on SQLite (one writer at a time) and one per CPU core on PostgreSQL. */
export function httpProcesses(config: Config, cores = availableParallelism()): number {
  if (config.http.processes > 0) return config.http.processes
  return databaseTarget(config).dialect === 'postgresql' ? cores : 1
}

/** In an HTTP process of a cluster: its number (1..N); undefined anywhere else. */
export function httpProcessNumber(): number | undefined {
  if (!cluster.isWorker) return undefined
  const n = Number(process.env[HTTP_PROCESS_VARIABLE])
  return Number.isInteger(n) && n > 0 ? n : undefined
}

/** In an HTTP process of a cluster: tells the primary it listens. */
export function announceServing(url: string, publicUrl: string): void {
  const message: ServingMessage = { type: 'mediactl:serving', url, publicUrl }
  process.send?.(message)
}

export interface ClusterServing {
  /** The address bound, and the public URL (as the HTTP processes announced them). */
  url: string
  publicUrl: string
  processes: number
  initialized?: InitResult
  /** The metrics listener's URL (the sum of every process), or null when metrics are off. */
  metricsUrl: string | null
  /**
   * Rejects when an HTTP process refused to start for a reason no restart fixes (its exit code
   * 78: a bad setting, a missing database), once every process was stopped; never resolves.
   */
  failed: Promise<never>
  /** Stops every HTTP process gracefully (each as a lone `serve` does), then the metrics listener. */
  stop(): Promise<void>
}

export interface ClusterOptions extends Omit<ServeOptions, 'httpProcess'> {
  processes: number
}

/** A crash loop slows down: 1 s, 2 s, 4 s … 30 s between starts; a process that served a minute resets it. */
const RESTART_MAX_MS = 30_000
const STABLE_MS = 60_000

/** What an HTTP process refused to start with, that no restart fixes (sysexits' EX_CONFIG). */
export const EXIT_REFUSED = 78

/**
 * `serve --processes N` (N ≥ 2): this process is node:cluster's primary. It forks N HTTP
 * processes that bind the port at once (answering probes while they start), waits for the
 * database itself and migrates once (N processes must not race to apply migrations), then
 * lets them boot; each runs `serve` on the same port (the primary accepts and hands
 * connections round-robin) with its own kernel and database pool; process 1 alone runs the
 * jobs. It starts again an HTTP process that dies, for as long as it runs (with a growing
 * delay in a crash loop, counted in `mediactl_http_process_restarts_total`), unless the
 * process refused to start for a reason no restart fixes (exit code 78): then it stops them
 * all. It serves the sum of their metrics, and on stop sends each SIGTERM and waits for them
 * all. Killed itself, the HTTP processes see their channel close and exit (node:cluster does that).
 */
export async function serveCluster(options: ClusterOptions): Promise<ClusterServing> {
  const config = readConfig(options)
  const log: Logger = options.logger ?? createLogger(config.log_level)
  const { registry: metrics, restarts: restartsCounter } = primaryMetrics()

  const workers = new Map<number, Worker>()
  const served = new Set<number>()
  let stopping = false
  let migrated = false
  let announced: ServingMessage | undefined
  let refuse: (error: Error) => void = () => undefined
  const refused = new Promise<never>((_, reject) => (refuse = reject))
  refused.catch(() => undefined)
  const firstServed: { resolve: () => void; promise: Promise<void> } = withResolvers()

  const restarts = new Map<number, number>()
  const started = new Map<number, number>()
  const fork = (n: number): void => {
    // Until the appliance serves, each process binds the port while it starts (probes answer); later ones do not, their siblings serve.
    const worker = cluster.fork({
      [HTTP_PROCESS_VARIABLE]: String(n),
      [LISTEN_EARLY_VARIABLE]: served.size ? '0' : '1',
    })
    workers.set(n, worker)
    started.set(n, Date.now())
    worker.on('message', (message: Partial<ServingMessage> | { type?: string }) => {
      if (message?.type === 'mediactl:starting' && migrated) worker.send({ type: 'mediactl:migrated' })
      if (message?.type !== 'mediactl:serving') return
      announced ??= message as ServingMessage
      if (restarts.get(n)) log.info({ http_process: n }, 'HTTP process serving again')
      served.add(n)
      if (served.size === options.processes) firstServed.resolve()
    })
    worker.once('exit', (code, signal) => {
      if (stopping) return
      if (code === EXIT_REFUSED) {
        refuse(
          new UserError(`HTTP process ${n} refused to start: its error is above`, {
            hint: 'fix what it says, then start serve again',
          }),
        )
        return
      }
      const lived = Date.now() - (started.get(n) ?? 0)
      const count = lived > STABLE_MS ? 1 : (restarts.get(n) ?? 0) + 1
      restarts.set(n, count)
      const delay = Math.min(RESTART_MAX_MS, 1000 * 2 ** (count - 1))
      log.error({ http_process: n, code, signal, restart_in_ms: delay }, 'HTTP process exited; starting it again')
      setTimeout(() => {
        if (stopping) return
        restartsCounter.inc()
        fork(n)
      }, delay).unref()
    })
  }

  const stopAll = async (): Promise<void> => {
    stopping = true
    const alive = [...workers.values()].filter((w) => !w.isDead())
    const exits = alive.map((w) => new Promise<void>((resolve) => w.once('exit', () => resolve())))
    for (const w of alive) w.process.kill('SIGTERM')
    // Each process bounds its own shutdown (http.shutdown_timeout per step); past four of them (connections, cut requests, jobs, plugins) it hangs.
    const bound = setTimeout(
      () => {
        for (const w of alive) if (!w.isDead()) w.process.kill('SIGKILL')
      },
      config.http.shutdown_timeout * 4000 + 5000,
    )
    await Promise.all(exits)
    clearTimeout(bound)
  }
  // A refusal stops every process, whenever it comes.
  const failed = refused.catch(async (error: unknown) => {
    await stopAll()
    throw error
  })
  failed.catch(() => undefined)

  for (let n = 1; n <= options.processes; n++) fork(n)
  let initialized: InitResult | undefined
  let metricsServer: Server | undefined
  let metricsUrl: string | null = null
  try {
    initialized = options.init ? await initInstance({ ...options, ...options.init }) : undefined
    await withKernel({ ...options, logger: log, pending: 'allow' }, (kernel) =>
      kernel.whileStarting(async () => {
        // Once the database answered: a missing database is the first thing to fix (init makes the secret too).
        requireSecret(options)
        await migrateAtStart(kernel, options, log)
        if (statePerProcess(kernel.services.ports).length) throw new StatePerProcessError(options.processes)
      }),
    )
    migrated = true
    for (const worker of workers.values()) if (!worker.isDead()) worker.send({ type: 'mediactl:migrated' })
    await Promise.race([firstServed.promise, failed])
    if (config.metrics.port) {
      const listening = await listenMetrics(clusterMetrics(metrics), config.metrics.port, config.metrics.host)
      metricsServer = listening.server
      metricsUrl = listening.url
      log.info({ url: metricsUrl }, 'metrics served')
    }
  } catch (error) {
    await stopAll()
    throw error
  }

  let stopped: Promise<void> | undefined
  return {
    url: announced!.url,
    publicUrl: announced!.publicUrl,
    processes: options.processes,
    initialized,
    metricsUrl,
    failed,
    stop: () =>
      (stopped ??= (async () => {
        await stopAll()
        if (!metricsServer) return
        const closed = new Promise<void>((resolve) => metricsServer!.close(() => resolve()))
        metricsServer.closeAllConnections()
        await closed
      })()),
  }
}

/** The primary's own metrics, served after the sum of its HTTP processes' (docs/operations.md, Metrics). */
export function primaryMetrics(): { registry: Registry; restarts: Counter } {
  const registry = new Registry()
  const restarts = new Counter({
    name: 'mediactl_http_process_restarts_total',
    help: 'HTTP processes the primary of serve --processes N started again after they exited',
    registers: [registry],
  })
  return { registry, restarts }
}

/**
 * In an HTTP process of a cluster, once its port is bound: resolves when the primary has
 * applied the migrations (asked, so that a message sent before this process listened is not lost).
 */
export function migratedByPrimary(): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (message: { type?: string }): void => {
      if (message?.type !== 'mediactl:migrated') return
      process.off('message', onMessage)
      resolve()
    }
    process.on('message', onMessage)
    process.send?.({ type: 'mediactl:starting' })
  })
}

/** In an HTTP process of a cluster: whether it binds the port while it starts (the primary says, at fork). */
export function listensWhileStarting(): boolean {
  return process.env[LISTEN_EARLY_VARIABLE] !== '0'
}

function withResolvers(): { resolve: () => void; promise: Promise<void> } {
  let resolve: () => void = () => undefined
  const promise = new Promise<void>((r) => (resolve = r))
  return { resolve, promise }
}
