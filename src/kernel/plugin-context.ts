import type { EntityManager } from './db/orm.js'
import type { ChangeFeed } from './cache/change-feed.js'
import { ProcessCache } from './cache/process-cache.js'
import type { JobRegistry } from './jobs/job-registry.js'
import type { Jobs } from './jobs/jobs.js'
import type { RouteTable } from './http/router.js'
import type { MetricsRegistry } from './metrics/metrics-registry.js'
import type { PluginContext, PluginDefinition, Seeder } from './plugin.js'
import type { PluginServices } from './plugin-services.js'
import type { Readiness } from './readiness.js'
import type { KernelServices } from './services.js'
import type { Tokens } from './signed-token.js'

/** What of the kernel a plugin's context reaches: the registries its calls fill, the services it is handed. */
export interface KernelParts {
  services: KernelServices
  tokens: Tokens
  metrics: MetricsRegistry
  routes: RouteTable
  pluginServices: PluginServices
  jobTypes: JobRegistry
  jobs: Jobs
  readiness: Readiness
  seeders: { plugin: string; run: Seeder }[]
  stoppers: { plugin: string; stop: () => Promise<void> | void }[]
  starters: { plugin: string; start: () => Promise<void> | void }[]
  hostResolvers: ((host: string) => Promise<string | null>)[]
  em: () => EntityManager
  changes: ChangeFeed
}

/**
 * The context a plugin's `register` gets (`ctx`): every call names the plugin, so what it
 * declares (routes, jobs, seeders, ports, services) is known to be its own.
 */
export function pluginContext(
  plugin: PluginDefinition<never>,
  config: unknown,
  kernel: KernelParts,
): PluginContext<unknown> {
  const { services } = kernel
  const name = plugin.name
  return {
    name,
    log: services.log.child({ plugin: name }),
    config,
    kernelConfig: services.config,
    links: services.links,
    reader: services.reader,
    tokens: kernel.tokens,
    authz: services.authz,
    metrics: kernel.metrics.forPlugin(name),
    routes: (declare) => declare(kernel.routes.forPlugin(name)),
    provide: (port, impl) => {
      if (!(plugin.provides ?? []).includes(port)) {
        throw new Error(`plugin "${name}" provides the "${port}" port: declare it in its provides`)
      }
      services.ports.provide(name, port, impl)
    },
    port: (port) => services.ports.get(port),
    hasPort: (port) => services.ports.has(port),
    expose: (key, service) => kernel.pluginServices.expose(name, key, service),
    use: (key) => kernel.pluginServices.use(plugin, key),
    job: (type, handler, options) => kernel.jobTypes.declare(name, type, handler, options),
    enqueue: (type, payload, options) => kernel.jobs.enqueue(type, payload, options),
    reconcile: (run) => kernel.jobs.reconcile(name, run),
    jobs: kernel.jobs,
    ready: (dependency, check, startWait) => kernel.readiness.add(dependency, check, startWait),
    on: (event, handler) => services.events.on(name, event, handler),
    emit: (event, payload) => services.events.emit(event, payload),
    seed: (run) => kernel.seeders.push({ plugin: name, run }),
    onStop: (stop) => kernel.stoppers.push({ plugin: name, stop }),
    onServe: (start) => kernel.starters.push({ plugin: name, start }),
    hosts: (resolve) => kernel.hostResolvers.push(resolve),
    em: () => kernel.em(),
    cache: (options) => new ProcessCache(kernel.changes, options),
  }
}
