import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PluginContext, definePlugin } from '../../src/kernel/index.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { TEST_PG_URL } from '../helpers/database.js'
import { type Scrape, scrapeMetrics, valueOf } from '../helpers/metrics.js'
import { freePort } from '../helpers/redis-server.js'
import { waitFor } from '../helpers/wait.js'

/** Prometheus metrics on their own listener (`metrics.port`), never on the API's. */

/** A plugin recording metrics through `ctx.metrics`, and what its declarations that must fail said. */
function metricsPlugin(name: string, declare: (ctx: PluginContext) => void) {
  const refused: string[] = []
  const plugin = definePlugin({
    name,
    register(ctx) {
      declare(ctx)
      const attempts: (() => unknown)[] = [
        () => ctx.metrics.counter('probe_events_total', 'No prefix.'),
        () => ctx.metrics.counter('mediactl_Probe_total', 'Not lowercase.'),
        () => ctx.metrics.counter('mediactl_probe_events', 'A counter not ending in _total.'),
        () => ctx.metrics.gauge('mediactl_probe_blank', ' '),
        // Taken: by this plugin, by the first plugin, by the kernel.
        () => ctx.metrics.gauge(`mediactl_${name.replace(/-/g, '_')}_level`, 'Again.'),
        () => ctx.metrics.histogram('mediactl_probe_seconds', 'Again, from another plugin.'),
        () => ctx.metrics.gauge('mediactl_jobs', 'The kernel has it.'),
      ]
      for (const attempt of attempts) {
        try {
          attempt()
          refused.push('(accepted)')
        } catch (error) {
          refused.push((error as Error).message)
        }
      }
    },
  })
  return { plugin, refused }
}

describe('metrics', () => {
  let app: TestApp
  let url: string
  let level = 3
  const first = metricsPlugin('metrics-probe', (ctx) => {
    ctx.metrics.counter('mediactl_probe_events_total', 'Events of the probe, by kind.', ['kind']).inc({ kind: 'a' }, 2)
    ctx.metrics.histogram('mediactl_probe_seconds', 'Durations of the probe.', [], [1, 2]).observe(1.5)
    ctx.metrics.gauge('mediactl_metrics_probe_level', 'Level of the probe, read at each scrape.', ['side'], (gauge) =>
      gauge.set({ side: 'left' }, level),
    )
  })
  const second = metricsPlugin('metrics-other', (ctx) => {
    ctx.metrics.gauge('mediactl_metrics_other_level', 'Level of the other probe.')
  })

  beforeAll(async () => {
    app = await startApp({
      config: { metrics: { port: await freePort(), host: '127.0.0.1' } },
      plugins: [first.plugin, second.plugin],
    })
    url = (await app.kernel.serveMetrics())!
  })
  afterAll(async () => app?.close())

  const scrape = async (): Promise<string> => {
    const res = await fetch(url)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    return res.text()
  }

  it('serves GET /metrics on 127.0.0.1, nothing else; the API port does not serve them', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
    expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404)
    expect((await fetch(url, { method: 'POST' })).status).toBe(404)
    const api = await fetch(`${app.url}/metrics`)
    expect(api.status).toBeGreaterThanOrEqual(400)
    expect(await api.text()).not.toContain('process_cpu')
  })

  it('has the process metrics, and counts requests by method, route pattern (never the raw path) and status', async () => {
    expect((await app.client.get('/user/admin')).status).toBe(200)
    expect((await app.client.get('/file/no-such-file')).status).toBe(404)
    await fetch(`${app.url}/health`, { method: 'PROPFIND' })
    const text = await scrape()
    expect(text).toContain('process_cpu_user_seconds_total')
    expect(text).toContain('nodejs_eventloop_lag_seconds')
    expect(text).toMatch(
      /http_server_request_duration_seconds_count\{method="GET",route="\/user\/:username",status_code="200"\} [1-9]/,
    )
    expect(text).toMatch(
      /http_server_request_duration_seconds_count\{method="GET",route="\/file\/:file",status_code="404"\} [1-9]/,
    )
    // A method nobody routes is `other`: a client cannot make labels without end.
    expect(text).toMatch(/http_server_request_duration_seconds_count\{method="other",/)
    expect(text).not.toContain('PROPFIND')
    expect(text).not.toContain('no-such-file')
    expect(text).not.toMatch(/route="\/user\/admin"/)
  })

  it('shows the jobs by state and type, and what the jobs module counted', async () => {
    const text = await scrape()
    for (const name of [
      'mediactl_jobs',
      'mediactl_jobs_reconciled_total',
      'mediactl_jobs_taken_back_total',
      'mediactl_job_signal_failures_total',
      'mediactl_job_run_duration_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${name} `)
    }
    // Before any job exists, every state of every declared type is there with 0, so an alert such as
    // mediactl_jobs{state="waiting"} > 0 and mediactl_jobs{state="running"} == 0 works on a fresh install.
    for (const state of ['waiting', 'running', 'succeeded', 'failed', 'cancelled']) {
      expect(text).toMatch(new RegExp(`^mediactl_jobs\\{state="${state}",type="encoding.encode"\\} 0$`, 'm'))
    }
    // As the column stores dates: epoch milliseconds on SQLite, timestamps on PostgreSQL.
    const now = app.kernel.jobs.store.at(new Date())
    await app.kernel
      .em()
      .getKnex()
      .insert({
        type: 'encoding.encode',
        payload: '{"fileId":1}',
        state: 'failed',
        attempts: 3,
        max_attempts: 3,
        progress: 0,
        run_after: now,
        created_at: now,
        updated_at: now,
      })
      .into('jobs')
    expect(await scrape()).toMatch(/mediactl_jobs\{state="failed",type="encoding.encode"\} 1/)
  })

  it('serves what plugins record through ctx.metrics, gauges read at each scrape', async () => {
    let scrape = await scrapeMetrics(url)
    expect(scrape.types.get('mediactl_probe_events_total')).toBe('counter')
    expect(valueOf(scrape, 'mediactl_probe_events_total', { kind: 'a' })).toBe(2)
    expect(valueOf(scrape, 'mediactl_probe_seconds_bucket', { le: '1' })).toBe(0)
    expect(valueOf(scrape, 'mediactl_probe_seconds_bucket', { le: '2' })).toBe(1)
    expect(valueOf(scrape, 'mediactl_probe_seconds_sum')).toBe(1.5)
    expect(valueOf(scrape, 'mediactl_metrics_probe_level', { side: 'left' })).toBe(3)
    level = 7
    scrape = await scrapeMetrics(url)
    expect(valueOf(scrape, 'mediactl_metrics_probe_level', { side: 'left' })).toBe(7)
    expect(scrape.text).toContain('# HELP mediactl_probe_events_total Events of the probe, by kind.')
  })

  it('refuses a malformed name, a counter not ending in _total, no help, and a name declared already, naming who has it', () => {
    const shape = /names are "mediactl_" then lowercase words joined by "_"/
    for (const { refused, name } of [
      { refused: first.refused, name: 'metrics-probe' },
      { refused: second.refused, name: 'metrics-other' },
    ]) {
      expect(refused[0]).toMatch(shape)
      expect(refused[1]).toMatch(shape)
      expect(refused[2]).toBe(
        `plugin "${name}" declares metric "mediactl_probe_events": names are "mediactl_" then lowercase words joined by "_", ending in "_total"`,
      )
      expect(refused[3]).toBe(`plugin "${name}" declares metric "mediactl_probe_blank" without a help text`)
      const own = `mediactl_${name.replace(/-/g, '_')}_level`
      expect(refused[4]).toBe(
        `metric "${own}" is declared twice: by plugin "${name}" and by plugin "${name}"; give each metric its own name`,
      )
      expect(refused[6]).toBe(
        `metric "mediactl_jobs" is declared twice: by the kernel and by plugin "${name}"; give each metric its own name`,
      )
    }
    // The first plugin declared it, then tried again; the second found it taken by the first.
    expect(second.refused[5]).toBe(
      'metric "mediactl_probe_seconds" is declared twice: by plugin "metrics-probe" and by plugin "metrics-other"; give each metric its own name',
    )
  })

  it('a taken metrics port is an error naming the setting to change', async () => {
    const other = await startApp({ config: { metrics: { port: Number(new URL(url).port), host: '127.0.0.1' } } })
    try {
      await expect(other.kernel.serveMetrics()).rejects.toThrow(
        /^127\.0\.0\.1:\d+ is already in use by another process \(another mediactl serve\?\): stop what uses it or choose another metrics\.port \(MEDIACTL_METRICS__PORT; 0: no metrics\)$/,
      )
    } finally {
      await other.close()
    }
  })
})

describe('database pool metric', () => {
  let app: TestApp
  let url: string

  beforeAll(async () => {
    // Nothing of its own uses the database meanwhile: no jobs, no scheduled purge.
    app = await startApp({
      jobs: false,
      config: {
        plugins: ['root', 'platforms', 'identity', 'storage-fs', 'metadata', 'files'],
        files: { purge_schedule: '' },
        metrics: { port: await freePort(), host: '127.0.0.1' },
      },
    })
    url = (await app.kernel.serveMetrics())!
  })
  afterAll(async () => app?.close())

  const pool = (scrape: Scrape) =>
    Object.fromEntries(
      ['used', 'free', 'pending'].map((state) => [state, valueOf(scrape, 'mediactl_db_pool_connections', { state })]),
    )

  it("shows the pool's connections used, free and pending, read at each scrape", async () => {
    // SQLite: one connection, kept for the process; PostgreSQL: up to database.pool_max, made on demand.
    const max = TEST_PG_URL ? app.kernel.config.database.pool_max : 1
    const idle = await scrapeMetrics(url)
    expect(idle.types.get('mediactl_db_pool_connections')).toBe('gauge')
    const before = pool(idle)
    expect(before.used).toBe(0)
    expect(before.pending).toBe(0)
    expect(before.free).toBeGreaterThanOrEqual(TEST_PG_URL ? 0 : 1)
    expect(before.free).toBeLessThanOrEqual(max)

    // Every connection held, and one more asked for: the pool is exhausted.
    const client = app.kernel.em().getKnex().client as {
      acquireConnection(): Promise<unknown>
      releaseConnection(connection: unknown): Promise<unknown>
    }
    const held = await Promise.all(Array.from({ length: max }, () => client.acquireConnection()))
    const waiting = client.acquireConnection()
    // The scrape reads the pool as it starts; its own query of the jobs waits for a connection too.
    const scraped = scrapeMetrics(url)
    await waitFor(() => app.kernel.em().getKnex().client.pool!.numPendingAcquires() >= 2, {
      message: 'the scrape to wait',
    })
    for (const connection of held) await client.releaseConnection(connection)
    await client.releaseConnection(await waiting)
    expect(pool(await scraped)).toEqual({ used: max, free: 0, pending: 1 })

    await waitFor(async () => pool(await scrapeMetrics(url)).used === 0, { message: 'the connections to be free' })
    const after = pool(await scrapeMetrics(url))
    expect(after.pending).toBe(0)
    expect(after.free).toBe(max)
  })
})
