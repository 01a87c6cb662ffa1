import { randomBytes } from 'node:crypto'
import {
  type Config,
  ConfigError,
  type Kernel,
  type LoadConfigOptions,
  databaseTarget,
  redactUrl,
  statePerProcess,
} from '../kernel/index.js'
import { createLogger } from '../kernel/log.js'
import { bootKernel, checkConfig } from './boot.js'
import {
  type Check,
  type Outcome,
  baseUrlCheck,
  dataDirCheck,
  dependencyFix,
  failed,
  flavorCheck,
  instanceCheck,
  mediaBinaryCheck,
  passed,
  portCheck,
  storageBackendCheck,
  transcriberCheck,
} from './doctor-checks.js'
import { runtimeCheck } from './runtime-check.js'
import { httpProcesses } from './serve-cluster.js'

export type { Check, CheckStatus } from './doctor-checks.js'

export interface DoctorOptions extends LoadConfigOptions {
  /** Longest wait for one check (a dependency that does not answer), in milliseconds. */
  timeoutMs?: number
  /** Called with each check as it completes: the operator sees progress, not a silent pause. */
  onCheck?: (check: Check) => void
}

const CONFIG_FIX = 'correct the key named above (docs/configuration.md lists every key)'
const skipped = (why: string): Outcome => ({ status: 'skip', detail: why })

/** Resolves with `work`, or rejects once `ms` passed: a dead dependency must not hang doctor. */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

function messageOf(error: unknown): string {
  const { message, code } = error as { message?: string; code?: unknown }
  return message || (typeof code === 'string' ? code : String(error))
}

function databaseFix(config: Config, error?: unknown): string {
  if (/does not exist/.test(messageOf(error))) {
    return 'correct database.url (MEDIACTL_DATABASE_URL) if it has a typo, or create the database: "mediactl init --create-database"'
  }
  return databaseTarget(config).dialect === 'sqlite'
    ? 'check that the data dir is writable (data_dir, MEDIACTL_DATA_DIR)'
    : 'check that PostgreSQL runs and is reachable, and that database.url (MEDIACTL_DATABASE_URL) is right'
}

/** The first names of a long list, and how many more. */
function listed(names: string[]): string {
  return names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ')
}

/** What the enabled plugins make of the backends, for the config line. */
function backendsOf(config: Config): string {
  const named = (prefix: string, none: string): string =>
    config.plugins.find((p) => p.startsWith(prefix))?.slice(prefix.length) ?? none
  return `queue ${named('queue-', 'none')}, storage ${named('storage-', 'none')}, state ${named('state-', config.state ?? 'database')}`
}

/**
 * Where Digest nonce counts and upload locks are kept, whether every HTTP process `serve` would
 * start sees them, and (kept in the database or Redis) that a count can be recorded there.
 */
async function sharedStateCheck(kernel: Kernel): Promise<Outcome> {
  const { ports } = kernel.services
  const processes = httpProcesses(kernel.config)
  const served = `${processes} HTTP process${processes > 1 ? 'es' : ''}`
  const where = kernel.config.plugins.includes('state-redis') ? 'redis' : (kernel.config.state ?? 'database')
  if (statePerProcess(ports).length) {
    if (processes > 1) {
      return failed(
        `${where}: kept in each process, and serve would start ${served}: it refuses to`,
        'remove "state: memory" (MEDIACTL_STATE) to keep them in the database, or set http.processes: 1',
      )
    }
    return passed(`${where}: kept in this one process (${served})`)
  }
  // In the database, a count nobody else uses, recorded as a request's would be: its tables exist (Redis has a line of its own).
  if (where === 'database') await ports.get('nonceCounter').advance(`doctor-${randomBytes(8).toString('hex')}`, 1, 1)
  return passed(`${where}: seen by every process (${served})`)
}

/**
 * Checks each configured dependency in turn, each within a time limit: the configuration
 * (every enabled plugin's section), the public URL, the ports, the data dir and instance
 * files, ffmpeg and ffprobe, the database and its schema, what plugins declare for
 * `GET /ready` (Redis), and the storage backend (written, read, deleted). A failing
 * dependency fails its own line; the others are still checked.
 */
export async function doctor(options: DoctorOptions = {}): Promise<Check[]> {
  const timeoutMs = options.timeoutMs ?? 10_000
  const checks: Check[] = []
  const add = (name: string, outcome: Outcome): void => {
    const check = { name, ...outcome, ok: outcome.status !== 'fail' }
    checks.push(check)
    options.onCheck?.(check)
  }
  let config: Config
  try {
    config = await checkConfig(options)
    add('config', passed(`valid; ${config.plugins.length} plugins (${backendsOf(config)})`))
  } catch (error) {
    add('config', failed(messageOf(error), CONFIG_FIX))
    return checks
  }
  add('node.js', runtimeCheck())
  add('base_url', baseUrlCheck(config))
  add('http port', await portCheck(config.http.host, config.http.port, 'http.port (MEDIACTL_PORT) or http.host'))
  if (config.metrics.port) {
    add(
      'metrics port',
      await portCheck(config.metrics.host, config.metrics.port, 'metrics.port (MEDIACTL_METRICS__PORT)'),
    )
  }
  add('data dir', dataDirCheck(config))
  add('instance', instanceCheck(config))
  if (config.plugins.includes('encoder-ffmpeg')) {
    add('ffmpeg', mediaBinaryCheck('ffmpeg'))
    add('ffprobe', mediaBinaryCheck('ffprobe'))
    const flavors = await flavorCheck(config)
    if (flavors) add('flavors', flavors)
  }

  const target = databaseTarget(config)
  const where = `${target.dialect} at ${target.dialect === 'sqlite' ? target.location : redactUrl(target.location)}`
  let kernel: Kernel
  const booting = bootKernel({ ...options, logger: createLogger('silent') })
  try {
    kernel = await within(timeoutMs, booting)
  } catch (error) {
    // A boot that outlived the time limit is closed whenever it ends, so the process can exit.
    booting.then((late) => late.close()).catch(() => undefined)
    // Booting also validates what needs the plugins loaded; a missing database says so and how to create it.
    const plugin = (error as { plugin?: unknown }).plugin
    if (error instanceof ConfigError) add('config', failed(error.message, CONFIG_FIX))
    else if (typeof plugin === 'string') {
      add(plugin, failed(messageOf(error), `check the "${plugin}" section of the config (docs/configuration.md)`))
    } else {
      add('database', failed(`${where}: ${messageOf(error)}`, databaseFix(config, error)))
      add('dependencies', skipped('schema, Redis and storage checks need the database'))
    }
    return checks
  }
  try {
    await kernelChecks(kernel, where, timeoutMs, add)
  } finally {
    await kernel.close()
  }
  return checks
}

async function kernelChecks(
  kernel: Kernel,
  where: string,
  timeoutMs: number,
  add: (name: string, outcome: Outcome) => void,
): Promise<void> {
  let database = false
  try {
    await within(timeoutMs, kernel.orm.em.getConnection().execute('select 1'))
    database = true
    add('database', passed(where))
  } catch (error) {
    add('database', failed(`${where}: ${messageOf(error)}`, databaseFix(kernel.config, error)))
  }
  if (database) {
    try {
      const status = await within(timeoutMs, kernel.migrator.status())
      const pending = status.filter((m) => !m.executedAt).map((m) => m.name)
      const applied = status.filter((m) => m.executedAt)
      add(
        'migrations',
        pending.length
          ? failed(`${pending.length} pending: ${listed(pending)}`, 'run "mediactl migrate"')
          : passed(`schema up to date (${applied.length} migrations applied)`),
      )
    } catch (error) {
      add('migrations', failed(messageOf(error), 'check the database user may read the mediactl_migrations table'))
    }
  } else {
    add('migrations', skipped('needs the database'))
  }
  for (const { name, check } of kernel.readiness.dependencies) {
    if (name === 'database' || name.startsWith('storage')) continue
    try {
      await within(timeoutMs, check())
      add(name, passed('answers'))
    } catch (error) {
      const at = name.startsWith('redis') && kernel.config.redis_url ? ` at ${redactUrl(kernel.config.redis_url)}` : ''
      add(name, failed(`no answer${at}: ${messageOf(error)}`, dependencyFix(name)))
    }
  }
  if (database) {
    add(
      'shared state',
      await within(timeoutMs, sharedStateCheck(kernel)).catch((error: unknown) =>
        failed(messageOf(error), 'check the database (or Redis) answers and "mediactl migrate" ran'),
      ),
    )
  } else {
    add('shared state', skipped('needs the database'))
  }
  add(
    'storage',
    await within(timeoutMs, storageBackendCheck(kernel)).catch((error: unknown) =>
      failed(messageOf(error), 'check that the store is reachable'),
    ),
  )
  // Only with a transcriber plugin enabled: without one, nothing offers automatic captions.
  const { ports } = kernel.services
  if (ports.has('transcriber')) add('transcriber', await within(timeoutMs, transcriberCheck(ports.get('transcriber'))))
}
