import type { EntitySchema } from '@mikro-orm/core'
import { didYouMean } from '../shared/closest.js'
import type { z } from 'zod'
import type { Authz } from './authz/authz.service.js'
import type { Config } from './config/schema.js'
import type { MigrationDefinition } from './db/migration.js'
import type { EntityManager } from './db/orm.js'
import type { Emit, EventHandler, EventName, KernelEvents } from './events.js'
import type { FieldErrors } from './http/errors.js'
import type { LinkBuilder } from './http/links.js'
import type { Router } from './http/router.js'
import type { Logger } from './log.js'
import type { KernelPorts, PortName } from './ports.js'
import type { CacheOptions, ProcessCache } from './cache/process-cache.js'
import type { Reader } from './cache/reader.js'
import type { Tokens } from './signed-token.js'
import type { EnqueueOptions, JobHandler, JobRecord, JobTypeOptions } from './jobs/job.types.js'
import type { JobsAdmin, Reconciler } from './jobs/jobs.js'
import type { PluginMetrics } from './metrics/metrics-registry.js'
import type { ServiceKey } from './plugin-services.js'
import { UserError } from './errors.js'

/** A seeding step: creates default rows when missing. Must be idempotent. */
export type Seeder = (em: EntityManager) => Promise<void>

/** What a plugin receives when it registers. Every registration is owned by the plugin. */
export interface PluginContext<C = unknown> {
  /** The plugin's name. */
  readonly name: string
  /** A logger tagged with the plugin's name. */
  readonly log: Logger
  /** The plugin's config slice, validated with its schema. */
  readonly config: C
  /** The whole validated configuration (read-only use). */
  readonly kernelConfig: Config
  /** Absolute URLs from the public base URL (one builder per process: keep it from registration on). */
  readonly links: LinkBuilder
  /** The authorization service: register object kinds, check permissions. */
  readonly authz: Authz
  /**
   * Declares Prometheus metrics (`mediactl_*`, during register) on the process's registry,
   * served with the kernel's on `metrics.port`; answers prom-client's objects to record with.
   * List each in docs/operations.md (Metrics).
   */
  readonly metrics: PluginMetrics
  /** Read-only queries of committed data, for work outside a request (`c.reader` in one). */
  readonly reader: Reader
  /** Signs and checks tokens with the server secret (which plugins never see). */
  readonly tokens: Tokens
  /** Declares HTTP routes. */
  routes(declare: (router: Router) => void): void
  /** Provides the implementation of a port the plugin declares in `provides` (during register). */
  provide<P extends PortName>(port: P, impl: KernelPorts[P]): void
  /**
   * The implementation of a port. Plugins that provide ports register first, so a plugin
   * resolves the ports it uses while it registers and its handlers close over them; throws,
   * saying what to enable, when no enabled plugin provides it.
   */
  port<P extends PortName>(port: P): KernelPorts[P]
  /** Whether an enabled plugin provides an optional port (locks, resumableUploads, encoder, queue). */
  hasPort(port: PortName): boolean
  /**
   * Offers the plugins that depend on this one a service or settings under `key`, named
   * `<this plugin>.<name>` and exported by this plugin's public entry (during register).
   */
  expose<T>(key: ServiceKey<T>, service: T): void
  /**
   * What a plugin of `dependsOn` exposed under `key` (during register, so handlers close over
   * it): another plugin's settings come this way, never by parsing its configuration section.
   */
  use<T>(key: ServiceKey<T>): T
  /** Subscribes to an event. */
  on<E extends EventName>(event: E, handler: EventHandler<E>): void
  /** Emits an event and waits for every handler. */
  emit<E extends EventName>(event: E, payload: KernelEvents[E]): Promise<void>
  /**
   * Declares the handler of a job type (during register). A type belongs to one plugin:
   * declaring one that another plugin declared stops the boot, naming both. Declaring jobs
   * needs a queue backend (`queue-inline` or `queue-bullmq`) among the enabled plugins.
   */
  job(type: string, handler: JobHandler, options?: JobTypeOptions): void
  /**
   * Queues a job of a declared type through the `queue` port (call at request or job time,
   * not during register); resolves once it is stored. `maxAttempts` defaults to
   * `jobs.max_attempts`. Throws for a type no enabled plugin declares.
   */
  enqueue(type: string, payload: Record<string, unknown>, options?: EnqueueOptions): Promise<JobRecord>
  /**
   * Declares a reconciler: at start and every `jobs.reconcile_interval`, in `serve` and in
   * `mediactl worker`, it finds the plugin's work that should be scheduled and has no live job
   * (a file waiting for an encoding), queues it and answers how many it queued (logged, counted).
   */
  reconcile(run: Reconciler): void
  /**
   * Every plugin's jobs as an operator sees them: listed, counted, retried, cancelled (the jobs
   * plugin's routes; the CLI's `jobs` commands act on the same). Who may see which is the caller's to decide.
   */
  readonly jobs: JobsAdmin
  /**
   * Declares a dependency `GET /ready` checks (Redis, the storage): `check` resolves while it
   * answers, throws (or hangs past 2 s) when not. Called at every readiness probe (at most
   * once a second): keep it one cheap round trip. With `startWait`, a starting `serve` or
   * `worker` waits for it, retrying, at most `seconds` (the setting named in the log and the
   * error), before it serves or runs jobs (docs/operations.md, Starting during an outage).
   */
  ready(dependency: string, check: () => Promise<unknown>, startWait?: { seconds: number; setting: string }): void
  /** Declares a seeding step, run by `mediactl seed` and `mediactl init`. */
  seed(seeder: Seeder): void
  /** Runs on shutdown, in reverse plugin order. */
  onStop(stop: () => Promise<void> | void): void
  /**
   * Runs once the kernel serves HTTP, in plugin order: background work of serving
   * processes only (scheduled jobs), not of CLI commands that boot the kernel. Stop it in
   * `onStop`.
   */
  onServe(start: () => Promise<void> | void): void
  /**
   * Serves requests to other host names than the public base URL's under a path prefix:
   * `resolve` gets the request's host name (lowercase, no port) and answers the prefix
   * (`/portal/<media>` for a media's own domain) or null. `/` then maps to the prefix itself,
   * `/x` to `<prefix>/x`; handlers see the prefix as `c.hostPrefix`.
   */
  hosts(resolve: (host: string) => Promise<string | null>): void
  /** A fresh EntityManager for work outside a request (jobs, CLI operations). */
  em(): EntityManager
  /**
   * A cache of lookups, kept in this process until one of `tables` changes, in any process
   * (PostgreSQL's change feed, while serving): for what nearly every request reads and rarely
   * changes (credentials, grants). Elsewhere, and while the feed is down, it reads through.
   */
  cache<V>(options: CacheOptions): ProcessCache<V>
}

/** A flag of a plugin's command, described for the CLI, which parses it and shows it in `--help`. */
export type CommandFlag =
  | {
      type: 'string'
      description: string
      required?: boolean
      default?: string
      /** The values accepted (others are a usage error). */
      options?: readonly string[]
      /** Repeatable (`--events a --events b`), one value each time: a string[]. */
      multiple?: boolean
    }
  | { type: 'integer'; description: string; required?: boolean; default?: number }
  | { type: 'boolean'; description: string; default?: boolean }

/** A positional argument of a plugin's command. */
export interface CommandArg {
  description: string
  required?: boolean
}

type FlagValue<F extends CommandFlag> = F extends { type: 'integer' }
  ? number
  : F extends { type: 'boolean' }
    ? boolean
    : F extends { multiple: true }
      ? string[]
      : string

/** The values of a command's flags: undefined when not given, unless required or defaulted. */
export type FlagValues<D extends Record<string, CommandFlag>> = {
  [K in keyof D]: D[K] extends { required: true } | { default: unknown } ? FlagValue<D[K]> : FlagValue<D[K]> | undefined
}

/** What a command was given. */
export interface CommandInput<
  F extends Record<string, CommandFlag> = Record<string, CommandFlag>,
  A extends Record<string, CommandArg> = Record<string, CommandArg>,
> {
  flags: FlagValues<F>
  args: { [K in keyof A]: A[K] extends { required: true } ? string : string | undefined }
}

/**
 * What a plugin's command runs with: the services of a booted kernel (migrated, the plugin
 * enabled), as the plugin's routes and jobs use them.
 */
export interface CommandContext {
  /** The whole validated configuration (read-only use). */
  readonly kernelConfig: Config
  /** Absolute URLs from the public base URL. */
  readonly links: LinkBuilder
  /** Read-only queries of committed data. */
  readonly reader: Reader
  /** A fresh EntityManager. */
  em(): EntityManager
  /** Emits an event and waits for every handler (`platform.created`, `user.created`). */
  readonly emit: Emit
  /** What a plugin exposed under `key` (`ctx.expose` at register): the very objects its routes use. */
  use<T>(key: ServiceKey<T>): T
}

/** Where a command's printer writes (nothing is written with `--json`). */
export interface CommandOutput {
  /** A line on stdout. */
  line(text: string): void
  /** Rows as a plain text table on stdout, the first being the headings. */
  table(rows: string[][]): void
  /** A line on stderr: what is not the result (reminders), so stdout stays what scripts read. */
  note(text: string): void
}

/**
 * A CLI command a plugin owns (`mediactl webhooks create`): declared, not written against the
 * CLI framework (the CLI makes its parser and help from this). `run` calls the plugin's own
 * services, the ones its routes call, so the CLI refuses what the API refuses with the same
 * field names: a 412 of the services becomes a UserError naming the fields. Its result is what
 * `--json` prints; `print` writes it for people.
 */
export interface PluginCommand<
  F extends Record<string, CommandFlag> = Record<string, CommandFlag>,
  A extends Record<string, CommandArg> = Record<string, CommandArg>,
  R = unknown,
> {
  /** As typed after `mediactl`, words separated by spaces: `webhooks create`. */
  name: string
  /** One line for the command list and `--help`. */
  summary: string
  description?: string
  /** Whole command lines, starting with `mediactl`. */
  examples?: string[]
  flags?: F
  /** In the order they are typed. */
  args?: A
  run(ctx: CommandContext, input: CommandInput<F, A>): Promise<R>
  /** Writes the result for people (without `--json`). */
  print?(result: R, out: CommandOutput, input: CommandInput<F, A>): void
  /**
   * The one line that names refused fields (their API names, as the 412 says) the way this
   * command's user typed them; by default `--<flag> <message>` for each, joined by `; `.
   */
  refused?(fields: FieldErrors, input: CommandInput<F, A>): string
}

/** Declares a plugin's command, inferring its flags' and arguments' types for `run`. */
export function defineCommand<
  const F extends Record<string, CommandFlag>,
  const A extends Record<string, CommandArg>,
  R,
>(command: PluginCommand<F, A, R>): PluginCommand<F, A, R> {
  return command
}

/** A plugin: one folder under plugins/, one resource family or one port backend. */
export interface PluginDefinition<C = unknown> {
  /** Unique name; also its config key. */
  name: string
  /** Plugins that must be registered first. */
  dependsOn?: string[]
  /**
   * The ports it provides (`ctx.provide`). Providers register before every other plugin, so
   * that the others resolve ports while they register.
   */
  provides?: PortName[]
  /** Schema of the plugin's config slice (the top-level key named after the plugin). */
  config?: z.ZodType<C, z.ZodTypeDef, unknown>
  /** Entity schemas the plugin declares. */
  entities?: EntitySchema<any, any>[] // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Schema migrations, in order. */
  migrations?: MigrationDefinition[]
  /**
   * CLI commands the plugin owns (`mediactl webhooks create`): they call its services as its
   * routes do. The CLI lists them (src/catalog.ts) whether the plugin is enabled or not; a
   * command of a disabled plugin says how to enable it.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  commands?: readonly PluginCommand<any, any, any>[]
  /** Wires routes, events, ports and seeds. */
  register(ctx: PluginContext<C>): void | Promise<void>
}

/**
 * Where plugins come from: the names of every plugin available (also the config sections
 * accepted for disabled ones), and a loader for the enabled ones, so that a plugin that is
 * not enabled is never imported (a backend's SDK costs memory and start-up time).
 */
export interface PluginCatalog {
  /** Every plugin available, enabled or not. */
  readonly names: readonly string[]
  /** The definitions of these plugins (all known names). */
  load(names: readonly string[]): Promise<PluginDefinition<never>[]>
}

/** A catalog of definitions already loaded (tests, embedding). */
export function catalogOf(definitions: readonly PluginDefinition<never>[]): PluginCatalog {
  return {
    names: definitions.map((plugin) => plugin.name),
    load: (names) => Promise.resolve(definitions.filter((plugin) => names.includes(plugin.name))),
  }
}

/** Throws the error of `resolvePlugins` for an enabled name that no plugin of the catalog has. */
export function checkEnabled(enabled: readonly string[], available: readonly string[]): void {
  const unknown = enabled.find((name) => !available.includes(name))
  if (unknown !== undefined) throw new UserError(unknownPlugin(unknown, available))
}

function unknownPlugin(name: string, available: readonly string[]): string {
  return `unknown plugin "${name}" in the "plugins" config key (or plugins.enable, MEDIACTL_PLUGINS)${didYouMean(name, available)}; available: ${available.join(', ')}`
}

export function definePlugin<C = unknown>(definition: PluginDefinition<C>): PluginDefinition<C> {
  return definition
}

/**
 * Orders the enabled plugins so each comes after its dependencies, and the port providers
 * (with their own dependencies) before the rest. Throws a clear error for an unknown name,
 * a duplicate, a missing dependency or a cycle.
 */
export function resolvePlugins(enabled: string[], available: PluginDefinition<never>[]): PluginDefinition<never>[] {
  const byName = new Map<string, PluginDefinition<never>>()
  for (const plugin of available) {
    if (byName.has(plugin.name)) throw new Error(`two plugins are named "${plugin.name}"`)
    byName.set(plugin.name, plugin)
  }
  const seen = new Set<string>()
  for (const name of enabled) {
    if (seen.has(name)) throw new UserError(`plugin "${name}" is listed twice in the "plugins" config key`)
    seen.add(name)
    if (!byName.has(name)) throw new UserError(unknownPlugin(name, [...byName.keys()]))
  }
  const ordered: PluginDefinition<never>[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (name: string, chain: string[]): void => {
    if (state.get(name) === 'done') return
    if (state.get(name) === 'visiting') {
      throw new Error(`plugin dependency cycle: ${[...chain.slice(chain.indexOf(name)), name].join(' -> ')}`)
    }
    state.set(name, 'visiting')
    const plugin = byName.get(name)!
    for (const dependency of plugin.dependsOn ?? []) {
      if (!seen.has(dependency)) {
        throw new UserError(
          `plugin "${name}" depends on "${dependency}", which is not enabled: enable "${dependency}" (plugins.enable, or the "plugins" list) or disable "${name}" too (plugins.disable)`,
        )
      }
      visit(dependency, [...chain, name])
    }
    state.set(name, 'done')
    ordered.push(plugin)
  }
  const provides = (name: string): boolean => (byName.get(name)!.provides ?? []).length > 0
  for (const name of [...enabled.filter(provides), ...enabled.filter((name) => !provides(name))]) visit(name, [])
  return ordered
}
