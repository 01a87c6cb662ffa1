import { CATALOG } from '../catalog.js'
import {
  type Config,
  Kernel,
  type LoadConfigOptions,
  type Logger,
  type PluginCatalog,
  loadConfig,
  readSecret,
  UserError,
  createLogger,
  validatePlugins,
} from '../kernel/index.js'

export interface BootRequest extends LoadConfigOptions {
  /** Logger to use (the CLI quiets the log for one-shot commands). */
  logger?: Logger
  /** Where plugins come from (default: mediactl's catalog; tests and embedding add their own). */
  catalog?: PluginCatalog
}

/** Loads the configuration and boots the kernel with mediactl's plugin catalog (commands use withKernel). */
export async function bootKernel(request: BootRequest = {}): Promise<Kernel> {
  const { config } = loadConfig(request)
  return Kernel.boot({ config, catalog: request.catalog ?? CATALOG, logger: request.logger })
}

export interface KernelRequest extends BootRequest {
  /**
   * Pending migrations: refused with what to run (the default: a command that reads or writes
   * data would fail on a missing table), or allowed, for `work` to deal with them (migrate, seed,
   * init, serve, worker).
   */
  pending?: 'refuse' | 'allow'
  /**
   * Leaves the kernel open once `work` resolved, for a long-running process (serve, worker) that
   * closes it when it stops; it is closed when `work` throws. Otherwise (a one-shot command) it
   * is closed when `work` settles, and the log is quiet unless `logger` says otherwise.
   */
  keepOpen?: boolean
}

/**
 * The lifecycle of every command that boots the kernel: loads the configuration, boots the
 * kernel with mediactl's catalog, refuses while migrations are pending (unless allowed), runs
 * `work`, and closes the kernel whatever happens (or, with `keepOpen`, only when `work` fails).
 */
export async function withKernel<T>(request: KernelRequest, work: (kernel: Kernel) => Promise<T>): Promise<T> {
  const logger = request.logger ?? (request.keepOpen ? undefined : createLogger('warn', 2))
  const kernel = await bootKernel({ ...request, logger })
  let failed = true
  try {
    if (request.pending !== 'allow') {
      const pending = await kernel.pendingMigrations()
      if (pending.length) {
        throw new UserError(`${pending.length} migration(s) pending`, { hint: 'run "mediactl migrate" first' })
      }
    }
    const result = await work(kernel)
    failed = false
    return result
  } finally {
    if (failed || !request.keepOpen) await kernel.close()
  }
}

/** Refuses to serve without the server secret, which authenticates everyone: `init` makes it. */
export function requireSecret(request: LoadConfigOptions): void {
  if (!readSecret(readConfig(request))) {
    throw new UserError('no server secret', { hint: 'run "mediactl init" (or set auth.secret / MEDIACTL_SECRET)' })
  }
}

/** Loads the configuration only (no database). */
export function readConfig(request: LoadConfigOptions = {}): Config {
  return loadConfig(request).config
}

/**
 * Loads and validates the whole configuration, every enabled plugin's section included,
 * opening and writing nothing: what `init` runs before it writes a file.
 */
export async function checkConfig(request: BootRequest = {}): Promise<Config> {
  const { config } = loadConfig(request)
  await validatePlugins(config, request.catalog ?? CATALOG)
  return config
}
