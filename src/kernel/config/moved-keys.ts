import type { Logger } from '../log.js'

/**
 * Warns of keys of a plugin's section that moved elsewhere: they are still accepted (an older
 * configuration file keeps loading after an upgrade) and ignored, and the warning says where
 * they went.
 */
export function warnMovedKeys(
  section: string,
  config: Record<string, unknown>,
  moved: Record<string, string>,
  log: Logger,
): void {
  for (const [key, to] of Object.entries(moved)) {
    if (config[key] !== undefined) log.warn(`${section}.${key} is ignored: set ${to} instead (docs/configuration.md)`)
  }
}
