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
import { readConfig, requireSecret, withKernel } from './boot.js'
import { type InitResult, initInstance } from './init.js'
import { type ServeOptions, migrateAtStart } from './serve.js'

/** Tells an HTTP process of the cluster its number (1..N); read by `serve`, never a config key. */
export const HTTP_PROCESS_VARIABLE = 'MEDIACTL_HTTP_PROCESS'

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
  /** Stops every HTTP process gracefully (each as a lone `serve` does), then the metrics listener. */
  stop(): Promise<void>
}

export interface ClusterOptions extends Omit<ServeOptions, 'httpProcess'> {
  processes: number
}

/** A crash loop slows down: 1 s, 2 s, 4 s … 30 s between starts; a process that served a minute resets it. */
const RESTART_MAX_MS = 30_000
const STABLE_MS = 60_000

/**
 * `serve --processes N` (N ≥ 2): this process is node:cluster's primary. It initializes and
 * migrates once (N processes must not race to apply migrations), then forks N HTTP
 * processes that run `serve` on the same port (the primary accepts and hands connections
 * round-robin), each with its own kernel and database pool; process 1 alone runs the jobs.
 * It starts again an HTTP process that dies (with a growing delay in a crash loop), serves
 * the sum of their metrics, and on stop sends each SIGTERM and waits for them all. Killed
 * itself, the HTTP processes see their channel close and exit (node:cluster does that).
 */
export async function serveCluster(options: ClusterOptions): Promise<ClusterServing> {
  const initialized = options.init ? await initInstance({ ...options, ...options.init }) : undefined
  const config = readConfig(options)
  const log: Logger = options.logger ?? createLogger(config.log_level)
  await withKernel({ ...options, logger: log, pending: 'allow' }, async (kernel) => {
    // Once the database answered: a missing database is the first thing to fix (init makes the secret too).
    requireSecret(options)
    await migrateAtStart(kernel, options, log)
    if (statePerProcess(kernel.services.ports).length) throw new StatePerProcessError(options.processes)
  })

  const workers = new Map<number, Worker>()
  let stopping = false
  let announced: ServingMessage | undefined
  const fork = (n: number): Worker => {
    const worker = cluster.fork({ [HTTP_PROCESS_VARIABLE]: String(n) })
    workers.set(n, worker)
    return worker
  }
  const serving = (worker: Worker): Promise<ServingMessage> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: Partial<ServingMessage>): void => {
        if (message?.type !== 'mediactl:serving') return
        worker.off('exit', onExit)
        worker.off('message', onMessage)
        resolve(message as ServingMessage)
      }
      const onExit = (code: number | null, signal: string | null): void => {
        worker.off('message', onMessage)
        reject(new UserError(`an HTTP process exited (${signal ?? `code ${code}`}) before serving: its error is above`))
      }
      worker.on('message', onMessage)
      worker.once('exit', onExit)
    })

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

  try {
    const first = await Promise.all(Array.from({ length: options.processes }, (_, i) => serving(fork(i + 1))))
    announced = first[0]!
  } catch (error) {
    await stopAll()
    throw error
  }

  // From now on an HTTP process that dies is started again, with the same number (process 1 runs the jobs).
  const restarts = new Map<number, number>()
  const started = new Map<number, number>([...workers.keys()].map((n) => [n, Date.now()]))
  const watch = (n: number, worker: Worker): void => {
    worker.once('exit', (code, signal) => {
      if (stopping) return
      const lived = Date.now() - (started.get(n) ?? 0)
      const count = lived > STABLE_MS ? 1 : (restarts.get(n) ?? 0) + 1
      restarts.set(n, count)
      const delay = Math.min(RESTART_MAX_MS, 1000 * 2 ** (count - 1))
      log.error({ http_process: n, code, signal, restart_in_ms: delay }, 'HTTP process exited; starting it again')
      setTimeout(() => {
        if (stopping) return
        const next = fork(n)
        started.set(n, Date.now())
        watch(n, next)
        serving(next).then(
          () => log.info({ http_process: n }, 'HTTP process serving again'),
          () => undefined, // its exit is handled by watch
        )
      }, delay).unref()
    })
  }
  for (const [n, worker] of workers) watch(n, worker)

  let metricsServer: Server | undefined
  let metricsUrl: string | null = null
  if (config.metrics.port) {
    try {
      const listening = await listenMetrics(clusterMetrics(), config.metrics.port, config.metrics.host)
      metricsServer = listening.server
      metricsUrl = listening.url
      log.info({ url: metricsUrl }, 'metrics served')
    } catch (error) {
      await stopAll()
      throw error
    }
  }

  let stopped: Promise<void> | undefined
  return {
    url: announced.url,
    publicUrl: announced.publicUrl,
    processes: options.processes,
    initialized,
    metricsUrl,
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
