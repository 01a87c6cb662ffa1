import { CATALOG } from '../../src/catalog.js'
import { Kernel, createLogger, loadConfig } from '../../src/kernel/index.js'

/**
 * Boots the kernel with mediactl's catalog on a data dir, without migrating, seeding or
 * listening: enough to look at what the plugins registered. `env` plays the MEDIACTL_*
 * variables; `overrides` are merged last.
 */
export async function bootOn(
  dataDir: string,
  options: { env?: Record<string, string>; overrides?: Record<string, unknown> } = {},
): Promise<Kernel> {
  const { config } = loadConfig({
    env: options.env ?? {},
    cwd: dataDir,
    overrides: { data_dir: dataDir, log_level: 'silent', ...options.overrides },
  })
  return Kernel.boot({ config, catalog: CATALOG, logger: createLogger('silent') })
}
