import { didYouMean } from '../../shared/closest.js'
import { type PluginCatalog, type PluginDefinition, checkEnabled, resolvePlugins } from '../plugin.js'
import { ConfigError, pluginConfig } from './load.js'
import { type Config, kernelConfigSchema } from './schema.js'

const KERNEL_KEYS = Object.keys(kernelConfigSchema.shape)

/** The enabled plugins in dependency order, with each one's validated config slice. */
export interface ValidatedPlugins {
  plugins: PluginDefinition<never>[]
  slices: Map<string, unknown>
}

/**
 * Everything about the configuration that needs the plugins: the enabled names exist, their
 * dependencies are enabled, no top-level key is unknown, each enabled plugin's section is
 * valid. Opens nothing: `init` runs it before writing any file, `boot` before the database.
 */
export async function validatePlugins(config: Config, catalog: PluginCatalog): Promise<ValidatedPlugins> {
  checkEnabled(config.plugins, catalog.names)
  const plugins = resolvePlugins(config.plugins, await catalog.load([...new Set(config.plugins)]))
  const known = [...KERNEL_KEYS, ...catalog.names]
  const unknown = Object.keys(config).filter((key) => !known.includes(key))
  if (unknown.length) {
    const named = unknown.map((key) => `"${key}"${didYouMean(key, known)}`).join(', ')
    throw new ConfigError(`unknown configuration key(s): ${named}; see docs/configuration.md`)
  }
  const slices = new Map(plugins.map((p) => [p.name, p.config ? pluginConfig(config, p.name, p.config) : undefined]))
  return { plugins, slices }
}
