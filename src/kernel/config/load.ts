import { existsSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'
import { didYouMean } from '../../shared/closest.js'
import { packageRoot } from '../../shared/package-root.js'
import { UserError } from '../errors.js'
import { type BackendChoices, type PluginsLayer, applyBackends, foldPlugins } from './plugin-selection.js'
import { type Config, kernelConfigSchema } from './schema.js'

/** Raised for any configuration problem; the message names the key and what is expected. */
export class ConfigError extends UserError {
  override name = 'ConfigError'
}

/** Environment variables with a short documented name, mapped to their config key. */
const ENV_ALIASES: Record<string, string> = {
  MEDIACTL_DATA_DIR: 'data_dir',
  MEDIACTL_BASE_URL: 'base_url',
  MEDIACTL_LOG_LEVEL: 'log_level',
  MEDIACTL_HOST: 'http.host',
  MEDIACTL_PORT: 'http.port',
  MEDIACTL_DATABASE_URL: 'database.url',
  MEDIACTL_SECRET: 'auth.secret',
  MEDIACTL_PLUGINS: 'plugins',
  MEDIACTL_REDIS_URL: 'redis_url',
}

/** Kernel keys that are strings: their environment values are kept as written, never read as YAML. */
const STRING_KEYS = new Set([
  'data_dir',
  'base_url',
  'log_level',
  'http.host',
  'database.url',
  'auth.realm',
  'auth.secret',
  'redis_url',
  'queue',
  'storage',
  'state',
])

/** Keys whose environment value is a comma-separated list of plugin names. */
const PLUGIN_LIST_KEYS = new Set(['plugins', 'plugins.enable', 'plugins.disable'])

/** Variables that are read elsewhere and are not config keys (MEDIACTL_HTTP_*: serve-cluster.ts). */
const ENV_IGNORED = new Set([
  'MEDIACTL_CONFIG',
  'MEDIACTL_DEBUG',
  'MEDIACTL_HTTP_PROCESS',
  'MEDIACTL_HTTP_LISTEN_EARLY',
])

export interface LoadConfigOptions {
  /** Config file to merge over the defaults; falls back to MEDIACTL_CONFIG, then ./mediactl.yaml if present. */
  file?: string
  /** Environment to read MEDIACTL_* overrides from (defaults to process.env). */
  env?: NodeJS.ProcessEnv
  /** Values merged last (used by CLI flags such as --port). */
  overrides?: Record<string, unknown>
  /** Folder relative paths are resolved against (defaults to the current directory). */
  cwd?: string
}

export interface LoadedConfig {
  config: Config
  /** The config file that was merged, if any. */
  file: string | undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(over)) {
    out[key] = isObject(value) && isObject(out[key]) ? merge(out[key] as Record<string, unknown>, value) : value
  }
  return out
}

function readYaml(file: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`)
  }
  if (parsed == null) return {}
  if (!isObject(parsed)) throw new ConfigError(`config file ${file} must be a YAML mapping of keys`)
  return parsed
}

/**
 * Reads an environment value as YAML would when that gives a number, a boolean or a list;
 * anything else stays the string as written (`prefix:` or `null` is text, not a mapping or
 * null). A quoted value is the text inside the quotes: how digits reach a plugin's string key.
 */
function parseEnvValue(raw: string): unknown {
  if (raw === '') return ''
  try {
    const value = parseYaml(raw) as unknown
    if (typeof value === 'number' || typeof value === 'boolean' || Array.isArray(value)) return value
    return typeof value === 'string' && /^(["']).*\1$/s.test(raw) ? value : raw
  } catch {
    return raw
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  let node = target
  for (const key of keys.slice(0, -1)) {
    if (!isObject(node[key])) node[key] = {}
    node = node[key] as Record<string, unknown>
  }
  node[keys.at(-1)!] = value
}

/** Top-level keys of the kernel: a generic variable naming one of these keeps its underscores. */
const KERNEL_SECTIONS = new Set(Object.keys(kernelConfigSchema.shape))

/**
 * The config path of a generic MEDIACTL_<SECTION>__<KEY> variable. Plugin names use `-`,
 * which most shells cannot put in a variable name, so in a section that is not a kernel key
 * each `_` stands for `-`: MEDIACTL_STATE_REDIS__PREFIX sets `state-redis.prefix`.
 */
function genericPath(name: string): string {
  const [section = '', ...keys] = name.slice('MEDIACTL_'.length).toLowerCase().split('__')
  const top = keys.length && !KERNEL_SECTIONS.has(section) ? section.replaceAll('_', '-') : section
  return [top, ...keys].join('.')
}

/**
 * Reads MEDIACTL_* variables: the aliases above, and MEDIACTL_<SECTION>__<KEY> for any
 * nested key (double underscore between levels, for example MEDIACTL_HTTP__BODY_LIMIT;
 * `_` in a plugin's section name stands for `-`, see genericPath).
 */
export function envOverrides(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const plugins: Record<string, string[]> = {}
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('MEDIACTL_') || raw === undefined || ENV_IGNORED.has(name)) continue
    if (name.startsWith('MEDIACTL_TEST_')) continue
    const path = ENV_ALIASES[name] ?? genericPath(name)
    if (PLUGIN_LIST_KEYS.has(path)) {
      plugins[path] = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
      continue
    }
    setPath(out, path, STRING_KEYS.has(path) ? raw : parseEnvValue(raw))
  }
  // MEDIACTL_PLUGINS (the whole set) with MEDIACTL_PLUGINS__ENABLE/__DISABLE: the changes apply to that set.
  const changes = { enable: plugins['plugins.enable'], disable: plugins['plugins.disable'] }
  const list = plugins.plugins
  if (list) {
    out.plugins =
      changes.enable || changes.disable
        ? foldPlugins([
            { source: 'the environment', value: list },
            { source: 'the environment', value: changes },
          ])
        : list
  } else if (changes.enable || changes.disable) {
    out.plugins = Object.fromEntries(Object.entries(changes).filter(([, names]) => names))
  }
  return out
}

/** The object schema at a path of a schema (through optional, default, effects), if any. */
function objectAt(schema: z.ZodTypeAny | undefined, path: (string | number)[]): z.AnyZodObject | undefined {
  let node = schema
  for (let i = 0; node;) {
    if (node instanceof z.ZodOptional || node instanceof z.ZodNullable || node instanceof z.ZodDefault) {
      node = node._def.innerType as z.ZodTypeAny
    } else if (node instanceof z.ZodEffects) {
      node = node._def.schema as z.ZodTypeAny
    } else if (i === path.length) {
      return node instanceof z.ZodObject ? node : undefined
    } else if (node instanceof z.ZodObject) {
      node = (node.shape as Record<string, z.ZodTypeAny>)[String(path[i++])]
    } else if (node instanceof z.ZodArray) {
      node = node.element as z.ZodTypeAny
      i++
    } else {
      return undefined
    }
  }
  return undefined
}

/** A zod issue's message, with the closest valid name for an unknown key or value. */
function issueMessage(issue: z.ZodIssue, schema: z.ZodTypeAny | undefined): string {
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(objectAt(schema, issue.path)?.shape ?? {})
    return issue.keys.map((key) => `unknown key "${key}"${didYouMean(key, known)}`).join('; ')
  }
  if (issue.code === 'invalid_enum_value') {
    return `${issue.message}${didYouMean(String(issue.received), issue.options.map(String))}`
  }
  return issue.message
}

/**
 * Formats zod issues as `key: message` lines; with the schema, an unknown key or value
 * names the closest valid one.
 */
export function describeIssues(issues: z.ZodIssue[], prefix = '', schema?: z.ZodTypeAny): string {
  return issues
    .map((issue) => {
      const key = [prefix, ...issue.path.map(String)].filter(Boolean).join('.')
      return `  ${key || '(root)'}: ${issueMessage(issue, schema)}`
    })
    .join('\n')
}

/** The config file that applies: explicit, MEDIACTL_CONFIG, or ./mediactl.yaml when it exists. */
export function configFilePath(options: LoadConfigOptions = {}): { path: string; explicit: boolean } {
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const explicit = options.file ?? env.MEDIACTL_CONFIG
  if (explicit) return { path: resolve(cwd, explicit), explicit: true }
  return { path: resolve(cwd, 'mediactl.yaml'), explicit: false }
}

/**
 * Loads the configuration: config/default.yaml, then the config file, then MEDIACTL_*
 * variables, then explicit overrides. Validates the kernel keys; throws ConfigError naming
 * each invalid key and the value it expects.
 */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const layers: { source: string; values: Record<string, unknown> }[] = [
    { source: 'config/default.yaml', values: readYaml(resolve(packageRoot(), 'config/default.yaml')) },
  ]
  const { path, explicit } = configFilePath(options)
  let file: string | undefined
  if (existsSync(path)) {
    const fromFile = readYaml(path)
    // A relative data_dir in a config file is relative to that file, wherever the command runs.
    if (typeof fromFile.data_dir === 'string') fromFile.data_dir = resolve(dirname(path), fromFile.data_dir)
    layers.push({ source: path, values: fromFile })
    file = path
  } else if (explicit) {
    throw new ConfigError(`config file ${path} does not exist; create it or run "mediactl init --config ${path}"`)
  }
  layers.push({ source: 'the environment', values: envOverrides(env) })
  if (options.overrides) layers.push({ source: 'the command line', values: options.overrides })
  // `plugins` is folded layer by layer (a list replaces, enable/disable change): never merged as a mapping.
  const pluginLayers: PluginsLayer[] = layers.map(({ source, values }) => ({ source, value: values.plugins }))
  let merged: Record<string, unknown> = {}
  for (const { values } of layers) merged = merge(merged, { ...values, plugins: undefined })
  try {
    merged.plugins = foldPlugins(pluginLayers)
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${(error as Error).message}`)
  }
  const result = kernelConfigSchema.safeParse(merged)
  if (!result.success) {
    const issues = describeIssues(result.error.issues, '', kernelConfigSchema)
    throw new ConfigError(`invalid configuration${file ? ` (${file})` : ''}:\n${issues}`)
  }
  const config = result.data as Config
  config.plugins = applyBackends(config.plugins, config as BackendChoices)
  config.data_dir = resolve(cwd, config.data_dir)
  return { config, file }
}

/** Validates a plugin's config slice with its schema, naming bad keys under the plugin's key. */
export function pluginConfig<T>(config: Config, name: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>): T {
  const result = schema.safeParse(config[name] ?? {})
  if (!result.success) {
    throw new ConfigError(
      `invalid configuration:\n${describeIssues(result.error.issues, name, schema as z.ZodTypeAny)}`,
    )
  }
  return result.data
}
