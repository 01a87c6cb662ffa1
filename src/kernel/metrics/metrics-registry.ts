import { Counter, Gauge, Histogram, Registry } from 'prom-client'

export type { Counter, Gauge, Histogram } from 'prom-client'

/** A plugin's metric name: `mediactl_`, then lowercase words joined by `_` (Prometheus's own rules, narrowed). */
const PLUGIN_METRIC = /^mediactl_[a-z0-9]+(_[a-z0-9]+)*$/

/**
 * What a plugin records metrics with (`ctx.metrics`): prom-client's own objects, registered
 * on the process's one registry, so a plugin needs no wiring and the kernel knows none of
 * them. Names start with `mediactl_`; counters end in `_total` (Prometheus's convention,
 * which dashboards and `rate()` rely on). Label values must be bounded (a few words, never
 * an id, a name or a path): each value is a series kept for the life of the process.
 * Declare during register: a name belongs to one declaration; a second one throws, naming
 * who declared it first. Everything is cheap until scraped (`metrics.port`): with no
 * listener the values are kept and never read.
 */
export interface PluginMetrics {
  counter<L extends string = never>(name: string, help: string, labels?: readonly L[]): Counter<L>
  /** `buckets` in the observed unit (seconds, ratios); prom-client's defaults (5 ms to 10 s) when omitted. */
  histogram<L extends string = never>(
    name: string,
    help: string,
    labels?: readonly L[],
    buckets?: readonly number[],
  ): Histogram<L>
  /** `collect` runs at each scrape, to set values read from elsewhere (a pool, a table); may be async. */
  gauge<L extends string = never>(
    name: string,
    help: string,
    labels?: readonly L[],
    collect?: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L>
}

/**
 * The process's Prometheus registry, made at boot (a few maps: nothing runs until a scrape)
 * so plugins declare their metrics at registration, and served by `serveMetrics` with the
 * kernel's own (metrics.ts). It records who declared each name, for the error of a second
 * declaration.
 */
export class MetricsRegistry {
  readonly registry = new Registry()
  private readonly owners = new Map<string, string>()

  /** The exposition text, and its content type. */
  async scrape(): Promise<{ body: string; type: string }> {
    return { body: await this.registry.metrics(), type: this.registry.contentType }
  }

  /** Notes that `owner` declares `name` (the kernel's metrics included); throws when it is taken. */
  private claim(owner: string, name: string): void {
    const first = this.owners.get(name) ?? (this.registry.getSingleMetric(name) ? 'the kernel' : undefined)
    if (first) {
      throw new Error(`metric "${name}" is declared twice: by ${first} and by ${owner}; give each metric its own name`)
    }
    this.owners.set(name, owner)
  }

  /** The `ctx.metrics` of a plugin. */
  forPlugin(plugin: string): PluginMetrics {
    const registers = [this.registry]
    const claim = (name: string, help: string, suffix?: string): void => {
      const who = `plugin "${plugin}"`
      if (!PLUGIN_METRIC.test(name) || (suffix && !name.endsWith(suffix))) {
        throw new Error(
          `${who} declares metric "${name}": names are "mediactl_" then lowercase words joined by "_"${suffix ? `, ending in "${suffix}"` : ''}`,
        )
      }
      if (!help.trim()) throw new Error(`${who} declares metric "${name}" without a help text`)
      this.claim(who, name)
    }
    return {
      counter(name, help, labels = []) {
        claim(name, help, '_total')
        return new Counter({ name, help, labelNames: labels, registers })
      },
      histogram(name, help, labels = [], buckets) {
        claim(name, help)
        return new Histogram({
          name,
          help,
          labelNames: labels,
          registers,
          ...(buckets ? { buckets: [...buckets] } : {}),
        })
      },
      gauge(name, help, labels = [], collect) {
        claim(name, help)
        return new Gauge({
          name,
          help,
          labelNames: labels,
          registers,
          ...(collect
            ? {
                collect() {
                  return collect(this)
                },
              }
            : {}),
        })
      },
    }
  }
}
