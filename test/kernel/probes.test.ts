import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../helpers/app.js'
import { appWithOwnRedis } from '../helpers/redis-server.js'
import { waitFor } from '../helpers/wait.js'

/** The probes: `GET /health` (liveness) and `GET /ready` (readiness of every dependency). */

interface Probe {
  status: number
  headers: Headers
  body: { status: string; checks?: Record<string, string> }
}

async function probe(app: TestApp, path: string, headers: Record<string, string> = {}): Promise<Probe> {
  const res = await fetch(`${app.url}${path}`, { headers })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Probe['body'] }
}

describe('GET /health and GET /ready', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('/health answers 200 without credentials, and with wrong ones', async () => {
    expect(await probe(app, '/health')).toMatchObject({ status: 200, body: { status: 'ok' } })
    const wrong = await probe(app, '/health', { Authorization: 'Digest username="nobody"' })
    expect(wrong).toMatchObject({ status: 200, body: { status: 'ok' } })
  })

  it('/ready answers 200 naming each dependency checked: the database and the storage', async () => {
    const ready = await probe(app, '/ready')
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', 'storage (storage-fs)': 'ok' } })
    expect(ready.headers.get('content-type')).toMatch(/^application\/json/)
  })

  it('a method other than GET is refused (404 or 405), never a 5xx', async () => {
    const res = await fetch(`${app.url}/ready`, { method: 'POST' })
    expect(res.status).toBeGreaterThanOrEqual(400)
    expect(res.status).toBeLessThan(500)
  })
})

describe('GET /ready with a Redis the test stops and starts again', () => {
  let own: Awaited<ReturnType<typeof appWithOwnRedis>> | undefined
  let app: TestApp | undefined

  beforeAll(async () => {
    own = await appWithOwnRedis()
    app = own.app
  }, 60_000)
  afterAll(async () => own?.close())

  it('200 while Redis answers; 503 with Retry-After naming it (no address) once it stops; 200 once it is back', async () => {
    expect(await probe(app!, '/ready')).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { 'redis (state-redis)': 'ok', database: 'ok' } },
    })

    await own!.stop()
    let down: Probe | undefined
    await waitFor(async () => (down = await probe(app!, '/ready')).status === 503, {
      timeout: 15_000,
      message: '/ready to answer 503',
    })
    expect(down!.headers.get('retry-after')).toBe('5')
    expect(down!.body.status).toBe('unavailable')
    expect(down!.body.checks!['redis (state-redis)']).toMatch(/^(timed out|failing)/)
    expect(down!.body.checks!.database).toBe('ok')
    expect(JSON.stringify(down!.body)).not.toContain(String(own!.port))
    // Liveness does not look at dependencies.
    expect((await probe(app!, '/health')).status).toBe(200)

    await own!.restart()
    await waitFor(async () => (await probe(app!, '/ready')).status === 200, {
      timeout: 30_000,
      message: '/ready to answer 200 again',
    })
  }, 90_000)
})
