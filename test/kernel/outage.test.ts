import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/kernel/index.js'
import { isOutage } from '../../src/kernel/http/outage.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { freePort, startRedis, stopRedis } from '../helpers/redis-server.js'
import { waitFor } from '../helpers/wait.js'

/** A dependency that stops answering: 503 with Retry-After, never a 500 or a hang; the process recovers by itself. */

describe('isOutage', () => {
  it('tells an unreachable dependency from a refusal', () => {
    expect(isOutage(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))).toBe(
      true,
    )
    expect(isOutage(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe(true)
    expect(isOutage(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'))).toBe(true)
    expect(isOutage(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(true)
    expect(isOutage(new Error('wrapped', { cause: Object.assign(new Error('down'), { code: 'ETIMEDOUT' }) }))).toBe(
      true,
    )
    expect(isOutage(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false)
    expect(isOutage(new Error('no such table: frobs'))).toBe(false)
    expect(isOutage(undefined)).toBe(false)
  })
})

describe('Redis stopped while serving (state-redis: nonce counts)', () => {
  let app: TestApp | undefined
  let redis: ChildProcess | undefined
  let port: number

  beforeAll(async () => {
    port = await freePort()
    redis = await startRedis(port)
    const plugins = loadConfig({ env: {}, cwd: '/' }).config.plugins
    app = await startApp({ config: { redis_url: `redis://127.0.0.1:${port}`, plugins: [...plugins, 'state-redis'] } })
  }, 60_000)
  afterAll(async () => {
    await app?.close()
    await stopRedis(redis)
  })

  it('authenticated requests answer 503 with Retry-After within seconds, then 200 once Redis is back', async () => {
    expect((await app!.client.get('/user/admin')).status).toBe(200)
    await stopRedis(redis)

    const started = Date.now()
    const res = await app!.client.get('/user/admin')
    expect(Date.now() - started, 'no request hangs on a dead dependency').toBeLessThan(15_000)
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.body).toContain('<status>503</status>')
    expect(res.body).not.toContain(String(port))
    // Liveness does not depend on Redis.
    expect((await fetch(`${app!.url}/health`)).status).toBe(200)

    redis = await startRedis(port)
    await waitFor(async () => (await app!.client.get('/user/admin')).status === 200, {
      timeout: 30_000,
      message: 'requests to succeed again once Redis is back',
    })
  }, 90_000)
})
