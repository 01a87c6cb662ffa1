import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { definePlugin, reply, transaction } from '../../src/kernel/index.js'
import { isCancelledStatement, isOutage, outageOf } from '../../src/kernel/http/outage.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { type OwnPostgres, canRunPostgres, startPostgres } from '../helpers/postgres-server.js'
import { waitFor } from '../helpers/wait.js'

/**
 * PostgreSQL stopping, crashing or freezing under a serving process: requests answer 503 with
 * Retry-After within the configured timeouts (never a 500, never a hang), /ready says
 * `database`, the log says it once when it starts and once when it ends, and the same process
 * serves again once the server is back.
 */

const CONNECT_TIMEOUT = 2
const ACQUIRE_TIMEOUT = 4
const STATEMENT_TIMEOUT = 2
/** The client's read timeout the pool derives: a statement the server leaves unanswered this long means a dead connection. */
const READ_TIMEOUT = STATEMENT_TIMEOUT + CONNECT_TIMEOUT
/** What "within a few seconds" allows on a loaded machine, over the timeout that should answer. */
const MARGIN_MS = 3000

describe('isOutage and outageOf on PostgreSQL errors', () => {
  const pgError = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code })

  it('a server unreachable, shutting down or starting: an outage of the database', () => {
    for (const error of [
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('57P02', 'terminating connection because of crash of another server process'),
      pgError('57P03', 'the database system is starting up'),
      pgError('08006', 'connection failure'),
      pgError('08001'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout expired'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Query read timeout'),
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), {
        name: 'KnexTimeoutError',
      }),
    ]) {
      expect(isOutage(error), error.message).toBe(true)
      expect(outageOf(error), error.message).toBe('database')
    }
  })

  it('a refused connection names the database only once the pool marked it', () => {
    const refused = (): Error => pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')
    expect(isOutage(refused())).toBe(true)
    expect(outageOf(refused())).toBe('a dependency')
    expect(outageOf(Object.assign(refused(), { dependency: 'database' }))).toBe('database')
    expect(outageOf(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe('redis')
  })

  it('a cancelled statement is no outage; a refusal is neither', () => {
    const cancelled = pgError('57014', 'canceling statement due to statement timeout')
    expect(isOutage(cancelled)).toBe(false)
    expect(isCancelledStatement(cancelled)).toBe(true)
    expect(isCancelledStatement(new Error('wrapped', { cause: cancelled }))).toBe(true)
    for (const refusal of [pgError('23505', 'duplicate key'), pgError('42P01'), pgError('28P01'), new Error('x')]) {
      expect(isOutage(refusal)).toBe(false)
      expect(isCancelledStatement(refusal)).toBe(false)
    }
  })
})

/** Routes running a statement that lasts: with the configured limit, and without any (as a migration would). */
const sleepPlugin = definePlugin({
  name: 'test-sleep',
  register(ctx) {
    ctx.routes((r) => {
      r.get('/test/sleep/:seconds', async (c) => {
        await c.em.execute(`select pg_sleep(${Number(c.param('seconds'))})`)
        return reply.noContent()
      })
      r.get('/test/sleep-unlimited/:seconds', async (c) => {
        await transaction(c.em, async (em) => {
          await em.execute('set local statement_timeout = 0')
          await em.execute(`select pg_sleep(${Number(c.param('seconds'))})`)
        })
        return reply.noContent()
      })
    })
  },
})

interface LogLine {
  level: number
  msg: string
  dependency?: string
  dependencies?: string[]
  [key: string]: unknown
}

const available = canRunPostgres()

describe.skipIf(!available)('PostgreSQL unreachable while serving (a cluster of its own)', () => {
  let server: OwnPostgres | undefined
  let app: TestApp | undefined
  const lines: LogLine[] = []
  const started = (): LogLine[] =>
    lines.filter((l) => l.msg.startsWith('a dependency is unreachable') && l.dependency === 'database')
  const ended = (): LogLine[] =>
    lines.filter((l) => l.msg === 'dependencies answer again' && l.dependencies?.includes('database'))
  const ready = async (): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> => {
    const res = await fetch(`${app!.url}/ready`)
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as never }
  }
  /** Waits until the app answers an authenticated request with 200 again. */
  const recovered = (): Promise<void> =>
    waitFor(async () => (await app!.client.get('/platforms')).status === 200, {
      timeout: 30_000,
      interval: 100,
      message: 'requests to succeed again once PostgreSQL is back',
    })

  beforeAll(async () => {
    server = await startPostgres()
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) })
    app = await startApp({
      config: {
        database: {
          url: server.url,
          connect_timeout: CONNECT_TIMEOUT,
          acquire_timeout: ACQUIRE_TIMEOUT,
          statement_timeout: STATEMENT_TIMEOUT,
        },
      },
      plugins: [sleepPlugin],
      logger,
    })
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await server?.close()
  }, 60_000)

  it('a statement past statement_timeout answers 503 with Retry-After (cancelled, not an outage); the next request is fine', async () => {
    const begun = Date.now()
    const res = await app!.client.get('/test/sleep/30')
    const ms = Date.now() - begun
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.body).toContain('took too long')
    expect(ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT * 1000 - 100)
    expect(ms).toBeLessThan(STATEMENT_TIMEOUT * 1000 + MARGIN_MS)
    expect(lines.some((l) => l.msg.startsWith('a database statement ran past database.statement_timeout'))).toBe(true)
    expect(started()).toHaveLength(0)
    expect((await app!.client.get('/platforms')).status).toBe(200)
    // A statement allowed to run longer (as migrations are) is not cut.
    expect((await app!.client.get(`/test/sleep-unlimited/${STATEMENT_TIMEOUT + 0.5}`)).status).toBe(204)
  }, 30_000)

  it('stopped: 503 with Retry-After within seconds, /health 200, /ready 503 naming the database; started: 200 again, logged once each way', async () => {
    expect((await app!.client.get('/platforms')).status).toBe(200)
    expect((await ready()).status).toBe(200)

    await server!.stop('immediate')
    const begun = Date.now()
    const res = await app!.client.get('/platforms')
    const ms = Date.now() - begun
    console.info(`PostgreSQL stopped: the first request answered ${res.status} in ${ms} ms`)
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.body).toContain('<status>503</status>')
    expect(res.body).not.toContain(String(server!.port))
    expect(ms, 'no request hangs on a dead database').toBeLessThan(CONNECT_TIMEOUT * 1000 + MARGIN_MS)
    // Many more requests during the outage: one log line, not one per request.
    const more = await Promise.all(Array.from({ length: 5 }, () => app!.client.get('/platforms')))
    expect(more.map((r) => r.status)).toEqual([503, 503, 503, 503, 503])

    expect((await fetch(`${app!.url}/health`)).status).toBe(200)
    let down: Awaited<ReturnType<typeof ready>> | undefined
    await waitFor(async () => (down = await ready()).status === 503, { timeout: 10_000, message: '/ready 503' })
    expect(down!.retryAfter).toBe('5')
    expect((down!.body.checks as Record<string, string>).database).toMatch(/^(failing|timed out)/)
    expect(JSON.stringify(down!.body)).not.toContain(String(server!.port))

    await server!.start()
    await recovered()
    await waitFor(async () => (await ready()).status === 200, { timeout: 10_000, message: '/ready 200 again' })
    expect(started()).toHaveLength(1)
    expect(ended()).toHaveLength(1)
    expect(lines.indexOf(started()[0]!)).toBeLessThan(lines.indexOf(ended()[0]!))
  }, 90_000)

  it('a request in flight when the server dies answers 503, not 500; the process serves again once it is back', async () => {
    const logged = started().length
    const inFlight = app!.client.get('/test/sleep-unlimited/30')
    const watcher = await server!.client()
    try {
      await waitFor(
        async () =>
          (await watcher.query(`select 1 from pg_stat_activity where query like 'select pg_sleep(30%'`)).rowCount! > 0,
        { timeout: 10_000, message: 'the slow statement to run' },
      )
    } finally {
      await watcher.end()
    }
    await server!.stop('immediate')
    const res = await inFlight
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    await server!.start()
    await recovered()
    expect(started()).toHaveLength(logged + 1)
    expect(ended()).toHaveLength(logged + 1)
  }, 60_000)

  it('frozen (a host that vanished: connections open, nothing answers): 503 within the timeouts, then 200 once it answers again', async () => {
    const logged = started().length
    // A pooled connection is held by a statement when the server freezes: it is left unanswered.
    const inFlight = app!.client.get('/test/sleep/1.5')
    const watcher = await server!.client()
    try {
      await waitFor(
        async () =>
          (await watcher.query(`select 1 from pg_stat_activity where query like 'select pg_sleep(1.5)%'`)).rowCount! >
          0,
        { timeout: 10_000, message: 'the statement to run' },
      )
    } finally {
      await watcher.end()
    }
    await server!.freeze()
    try {
      const begun = Date.now()
      const [held, fresh] = await Promise.all([
        inFlight.then((res) => ({ res, ms: Date.now() - begun })),
        app!.client.get('/platforms').then((res) => ({ res, ms: Date.now() - begun })),
      ])
      console.info(
        `PostgreSQL frozen: the statement in flight answered ${held.res.status} in ${held.ms} ms, ` +
          `a new request ${fresh.res.status} in ${fresh.ms} ms`,
      )
      expect(held.res.status).toBe(503)
      expect(fresh.res.status).toBe(503)
      expect(held.ms).toBeLessThan(READ_TIMEOUT * 1000 + MARGIN_MS)
      // On an idle pooled connection (read timeout) or a new one (connect timeout), or waiting for one.
      expect(fresh.ms).toBeLessThan(Math.max(READ_TIMEOUT, ACQUIRE_TIMEOUT) * 1000 + MARGIN_MS)
      expect((await fetch(`${app!.url}/health`)).status).toBe(200)
      expect((await ready()).status).toBe(503)
    } finally {
      await server!.thaw()
    }
    await recovered()
    expect(started()).toHaveLength(logged + 1)
    expect(ended()).toHaveLength(logged + 1)
  }, 60_000)
})
