import type { Logger } from '../log.js'
import type { Config } from './schema.js'

/**
 * Warns of kernel keys that no longer do anything: they are still accepted for one release
 * (a configuration file written for the previous one keeps loading), and the warning says
 * why they are ignored, so the operator removes them before they are refused.
 */
export function warnRetiredKeys(config: Config, log: Logger): void {
  if (config.http.answer_cache_mb !== undefined) {
    log.warn(
      'http.answer_cache_mb is ignored: the whole-answer cache was removed (docs/decisions/0254); remove the key from the configuration',
    )
  }
}
