import { AggregatorRegistry, type Registry } from 'prom-client'
import type { MetricsSource } from './metrics-server.js'

/**
 * The metrics of `serve --processes N`: the HTTP processes (node:cluster workers) keep their
 * own registries and answer the primary's requests for them over the cluster channel
 * (prom-client's AggregatorRegistry); the primary serves their sum on the metrics listener,
 * so one scrape sees every process. Counters and histograms add up; the gauges read from the
 * database (the same value in every process) declare `aggregator: 'first'`.
 */

/** In an HTTP process of a cluster: answers the primary's scrapes with `registry` (none before boot). */
export function shareMetricsWithPrimary(registry?: Registry): void {
  AggregatorRegistry.setRegistries(registry ? [registry] : [])
  // Constructing one installs the worker's listener for the primary's requests (once per process).
  new AggregatorRegistry()
}

/** In the primary: the sum of the HTTP processes' metrics, asked of each at every scrape, then the primary's own. */
export function clusterMetrics(own?: Registry): MetricsSource {
  const aggregator = new AggregatorRegistry()
  return {
    async scrape() {
      const sum = await aggregator.clusterMetrics()
      const mine = own ? await own.metrics() : ''
      return { body: mine ? `${sum.replace(/\n*$/, '\n')}${mine}` : sum, type: aggregator.contentType }
    },
  }
}
