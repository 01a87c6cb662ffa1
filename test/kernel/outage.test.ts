import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isOutage } from '../../src/kernel/http/outage.js'
import type { TestApp } from '../helpers/app.js'
import { appWithOwnRedis } from '../helpers/redis-server.js'
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
  let own: Awaited<ReturnType<typeof appWithOwnRedis>> | undefined
  let app: TestApp | undefined

  beforeAll(async () => {
    own = await appWithOwnRedis()
    app = own.app
  }, 60_000)
  afterAll(async () => own?.close())

  it('authenticated requests answer 503 with Retry-After within seconds, then 200 once Redis is back', async () => {
    expect((await app!.client.get('/user/admin')).status).toBe(200)
    await own!.stop()

    const started = Date.now()
    const res = await app!.client.get('/user/admin')
    expect(Date.now() - started, 'no request hangs on a dead dependency').toBeLessThan(15_000)
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.body).toContain('<status>503</status>')
    expect(res.body).not.toContain(String(own!.port))
    // Liveness does not depend on Redis.
    expect((await fetch(`${app!.url}/health`)).status).toBe(200)

    await own!.restart()
    await waitFor(async () => (await app!.client.get('/user/admin')).status === 200, {
      timeout: 30_000,
      message: 'requests to succeed again once Redis is back',
    })
  }, 90_000)
})
