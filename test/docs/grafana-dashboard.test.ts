import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { primaryMetrics } from '../../src/app/serve-cluster.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { type Scrape, scrapeMetrics } from '../helpers/metrics.js'
import { freePort } from '../helpers/redis-server.js'

/**
 * docs/grafana-dashboard.json and the Metrics section of docs/operations.md against what a
 * running mediactl (every default plugin) serves on its metrics listener: neither can name a
 * metric that does not exist, and the docs name every metric there is.
 */

const DOCS = join(import.meta.dirname, '../../docs')

interface Target {
  expr: string
  refId: string
}
interface Panel {
  id: number
  type: string
  title: string
  datasource?: { type: string; uid: string }
  targets?: (Target & { datasource?: { uid: string } })[]
}
interface Dashboard {
  __inputs: { name: string; type: string; pluginId: string }[]
  schemaVersion: number
  uid: string
  panels: Panel[]
  templating: { list: { name: string; definition: string; datasource: { uid: string } }[] }
}

/** PromQL words that are no metric. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
])
const KEYWORDS_TOO = new Set(['offset', 'inf', 'nan'])

/**
 * The metric names a PromQL expression selects: identifiers left once strings, label
 * matchers, ranges and grouping label lists are removed, that call nothing (functions and
 * aggregations are followed by a parenthesis) and are no keyword.
 */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
  const names: string[] = []
  for (const [, name] of stripped.matchAll(/(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![a-zA-Z0-9_:]|\s*\()/g)) {
    if (!KEYWORDS.has(name!) && !KEYWORDS_TOO.has(name!.toLowerCase())) names.push(name!)
  }
  return names
}

/** Every name a query can select in a scrape: each metric, and a histogram's `_bucket`, `_sum`, `_count` series. */
function selectable(scrape: Scrape): Set<string> {
  const names = new Set(scrape.samples.map((sample) => sample.name))
  for (const [name, type] of scrape.types) {
    names.add(name)
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix)
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix)
  }
  return names
}

/** Whether every (, { and [ of an expression is closed, in order (outside strings). */
function balanced(expr: string): boolean {
  const open: string[] = []
  const pairs: Record<string, string> = { ')': '(', '}': '{', ']': '[' }
  for (const char of expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')) {
    if ('({['.includes(char)) open.push(char)
    else if (char in pairs && open.pop() !== pairs[char]) return false
  }
  return open.length === 0
}

describe('metric names in the docs', () => {
  let app: TestApp
  let scrape: Scrape
  const dashboard = JSON.parse(readFileSync(join(DOCS, 'grafana-dashboard.json'), 'utf8')) as Dashboard
  const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel, target })))

  beforeAll(async () => {
    app = await startApp({ config: { metrics: { port: await freePort(), host: '127.0.0.1' } } })
    scrape = await scrapeMetrics((await app.kernel.serveMetrics())!)
  })
  afterAll(async () => app?.close())

  it('the name extraction finds metrics and only them', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, route) (rate(http_server_request_duration_seconds_bucket{job=~"$job", route!="x"}[$__rate_interval])))',
      ),
    ).toEqual(['http_server_request_duration_seconds_bucket'])
    expect(metricNames('sum(rate(a_total[5m])) / on (instance) group_left max(b offset 1h) > bool 1e-3')).toEqual([
      'a_total',
      'b',
    ])
  })

  it('the dashboard is an importable Grafana dashboard on a ${DS_PROMETHEUS} input', () => {
    expect(dashboard.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', pluginId: 'prometheus' })])
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39)
    expect(dashboard.uid).toBe('mediactl-overview')
    const ids = dashboard.panels.map((panel) => panel.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(panel.datasource?.uid, panel.title).toBe('${DS_PROMETHEUS}')
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0)
    }
    for (const { panel, target } of queries) {
      expect(target.datasource?.uid, panel.title).toBe('${DS_PROMETHEUS}')
      expect(balanced(target.expr), `${panel.title}: ${target.expr}`).toBe(true)
    }
    for (const variable of dashboard.templating.list) expect(variable.datasource.uid).toBe('${DS_PROMETHEUS}')
  })

  it('every metric the dashboard queries is one mediactl serves', () => {
    const served = selectable(scrape)
    const used = new Set<string>()
    for (const { panel, target } of queries) {
      const names = metricNames(target.expr)
      expect(names.length, `${panel.title} ${target.refId} selects no metric: ${target.expr}`).toBeGreaterThan(0)
      for (const name of names) {
        expect(served.has(name), `${panel.title} ${target.refId}: "${name}" is not served`).toBe(true)
        used.add(name)
      }
    }
    for (const variable of dashboard.templating.list) {
      const name = /label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(variable.definition)?.[1]
      expect(name && served.has(name), `variable ${variable.name}: ${variable.definition}`).toBe(true)
    }
    // What the dashboard is for: requests, jobs, uploads, encoding, the pool, the processes.
    for (const name of [
      'http_server_request_duration_seconds_count',
      'http_server_request_duration_seconds_bucket',
      'mediactl_jobs',
      'mediactl_job_run_duration_seconds_bucket',
      'mediactl_upload_bytes_total',
      'mediactl_encode_seconds_per_output_second_bucket',
      'mediactl_db_pool_connections',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(used.has(name), name).toBe(true)
    }
  })

  it("docs/operations.md's Metrics table names every metric of mediactl's own, and only those", async () => {
    const operations = readFileSync(join(DOCS, 'operations.md'), 'utf8')
    const section = operations.slice(
      operations.indexOf('## Metrics'),
      operations.indexOf('\n## ', operations.indexOf('## Metrics') + 1),
    )
    const documented = [...section.matchAll(/^\| `([a-z0-9_]+)`/gm)].map((match) => match[1]!)
    // Node's process metrics are listed as `process_*`, `nodejs_*`.
    // Beside the sum of its processes', the primary of serve --processes N serves its own.
    const primary = (await primaryMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name)
    const own = [...scrape.types.keys(), ...primary].filter((name) => !/^(process|nodejs)_/.test(name))
    expect(documented.sort()).toEqual(own.sort())
    expect(section).toContain('`process_*`, `nodejs_*`')
    expect(section).toContain('grafana-dashboard.json')
  })
})
