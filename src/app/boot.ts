import { CATALOG } from '../catalog.js'
import {
  type Config,
  Kernel,
  type LoadConfigOptions,
  type Logger,
  type PluginCatalog,
  loadConfig,
  validatePlugins,
} from '../kernel/index.js'

export interface BootRequest extends LoadConfigOptions {
  /** Logger to use (the CLI quiets the log for one-shot commands). */
  logger?: Logger
  /** Where plugins come from (default: mediactl's catalog; tests and embedding add their own). */
  catalog?: PluginCatalog
}

/** Loads the configuration and boots the kernel with mediactl's plugin catalog. */
export async function bootKernel(request: BootRequest = {}): Promise<Kernel> {
  const { config } = loadConfig(request)
  return Kernel.boot({ config, catalog: request.catalog ?? CATALOG, logger: request.logger })
}

/**
 * Boots the kernel for a one-shot command that reads or writes data: refuses with a clear
 * message while migrations are pending, instead of failing on a missing table.
 */
export async function bootMigratedKernel(request: BootRequest = {}): Promise<Kernel> {
  const kernel = await bootKernel(request)
  const pending = await kernel.pendingMigrations()
  if (pending.length) {
    await kernel.close()
    throw new Error(`${pending.length} migration(s) pending: run "mediactl migrate" first`)
  }
  return kernel
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
