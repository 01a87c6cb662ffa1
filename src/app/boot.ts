import { CATALOG } from '../catalog.js'
import { type Config, Kernel, type LoadConfigOptions, type Logger, loadConfig } from '../kernel/index.js'

export interface BootRequest extends LoadConfigOptions {
  /** Logger to use (the CLI quiets the log for one-shot commands). */
  logger?: Logger
}

/** Loads the configuration and boots the kernel with mediactl's plugin catalog. */
export async function bootKernel(request: BootRequest = {}): Promise<Kernel> {
  const { config } = loadConfig(request)
  return Kernel.boot({ config, catalog: CATALOG, logger: request.logger })
}

/** Loads the configuration only (no database). */
export function readConfig(request: LoadConfigOptions = {}): Config {
  return loadConfig(request).config
}
