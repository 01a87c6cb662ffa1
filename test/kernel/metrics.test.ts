import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../helpers/app.js'
import { freePort } from '../helpers/redis-server.js'

/** Prometheus metrics on their own listener (`metrics.port`), never on the API's. */

describe('metrics', () => {
  let app: TestApp
  let url: string

  beforeAll(async () => {
    app = await startApp({ config: { metrics: { port: await freePort(), host: '127.0.0.1' } } })
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

  it('a taken metrics port is an error naming the setting to change', async () => {
    const other = await startApp({ config: { metrics: { port: Number(new URL(url).port), host: '127.0.0.1' } } })
    try {
      await expect(other.kernel.serveMetrics()).rejects.toThrow(
        /cannot serve metrics on 127\.0\.0\.1:\d+ \(EADDRINUSE\): choose another metrics\.port \(MEDIACTL_METRICS__PORT\)/,
      )
    } finally {
      await other.close()
    }
  })
})
