import { didYouMean } from '../../shared/closest.js'
import { UserError } from '../errors.js'

/**
 * Backends chosen by name for the kernel's ports (`queue: bullmq`), and the plugin each
 * choice enables; `null` is the kernel's own in-process implementation (no plugin).
 */
export const BACKENDS = {
  queue: { inline: 'queue-inline', bullmq: 'queue-bullmq' },
  storage: { fs: 'storage-fs', s3: 'storage-s3' },
  state: { database: null, memory: null, redis: 'state-redis' },
} as const satisfies Record<string, Record<string, string | null>>

export type BackendRole = keyof typeof BACKENDS
export type BackendChoices = { [R in BackendRole]?: keyof (typeof BACKENDS)[R] }

/** Where a layer of configuration came from, for messages: "config/default.yaml", a file, "the environment". */
export interface PluginsLayer {
  source: string
  value: unknown
}

function isNameList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((name) => typeof name === 'string' && name.trim() !== '')
}

function changesOf(value: unknown, source: string): { enable: string[]; disable: string[] } {
  const shape = `a list of plugin names (the whole set), or a mapping with "enable" and/or "disable" lists`
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UserError(`plugins (${source}): expected ${shape}`)
  }
  const { enable = [], disable = [], ...rest } = value as Record<string, unknown>
  const unknown = Object.keys(rest)
  if (unknown.length) {
    throw new UserError(
      `plugins.${unknown[0]} (${source}): unknown key${didYouMean(unknown[0]!, ['enable', 'disable'])}; ${shape}`,
    )
  }
  if (!isNameList(enable)) throw new UserError(`plugins.enable (${source}): expected a list of plugin names`)
  if (!isNameList(disable)) throw new UserError(`plugins.disable (${source}): expected a list of plugin names`)
  return { enable, disable }
}

/**
 * The enabled plugins after each layer in turn: a list replaces the set so far (the full
 * `plugins` list and MEDIACTL_PLUGINS keep working), a mapping changes it (`enable` adds,
 * `disable` removes), so a production file names only what differs from the default set.
 * Disabling a plugin that is not enabled is an error: a typo there would leave the plugin on
 * without a word.
 */
export function foldPlugins(layers: readonly PluginsLayer[]): string[] {
  let enabled: string[] = []
  for (const { source, value } of layers) {
    if (value === undefined) continue
    if (Array.isArray(value)) {
      if (!isNameList(value) || value.length === 0) {
        throw new UserError(`plugins (${source}): expected a non-empty list of plugin names`)
      }
      enabled = value.map((name) => name.trim())
      continue
    }
    const { enable, disable } = changesOf(value, source)
    for (const name of disable) {
      if (!enabled.includes(name)) {
        throw new UserError(
          `plugins.disable (${source}) names "${name}", which is not enabled${didYouMean(name, enabled)}; enabled: ${enabled.join(', ')}`,
        )
      }
    }
    enabled = enabled.filter((name) => !disable.includes(name))
    for (const name of enable) if (!enabled.includes(name)) enabled.push(name)
  }
  return enabled
}

/**
 * Applies the backend keys (`queue`, `storage`, `state`): the chosen backend's plugin takes
 * the place of the role's others (queue-bullmq replaces queue-inline); an unset key leaves
 * the list as it is.
 */
export function applyBackends(plugins: readonly string[], choices: BackendChoices): string[] {
  let out = [...plugins]
  for (const role of Object.keys(BACKENDS) as BackendRole[]) {
    const choice = choices[role]
    if (choice === undefined) continue
    const options: Record<string, string | null> = BACKENDS[role]
    const chosen = options[choice as string] ?? null
    const others = new Set(Object.values(options).filter((name): name is string => name !== null && name !== chosen))
    const at = out.findIndex((name) => others.has(name))
    out = out.filter((name) => !others.has(name))
    if (chosen !== null && !out.includes(chosen)) out.splice(at < 0 ? out.length : at, 0, chosen)
  }
  return out
}
