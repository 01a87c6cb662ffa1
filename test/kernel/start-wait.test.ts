import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import {
  DependencyUnavailableError,
  EXIT_UNAVAILABLE,
  UserError,
  listenWhileStarting,
  type StartingServer,
} from '../../src/kernel/index.js'
import { waitForDependencies } from '../../src/kernel/start-wait.js'
import { rawRequest } from '../helpers/digest-client.js'
import { recordingLogger } from '../helpers/log.js'
import { freePort } from '../helpers/redis-server.js'

/** A dependency that refuses until `answerAfter` checks have failed; counts the checks. */
function flaky(answerAfter: number): { check: () => Promise<void>; checks: () => number } {
  let checks = 0
  return {
    check: async () => {
      checks += 1
      if (checks <= answerAfter)
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    },
    checks: () => checks,
  }
}

describe('waitForDependencies: a starting process waits for the database and Redis', () => {
  it('answers at once, logging nothing, when every dependency answers', async () => {
    const { logger, lines } = recordingLogger()
    const database = flaky(0)
    await waitForDependencies(
      [{ name: 'database', check: database.check, waitSeconds: 5, setting: 'database.connect_wait' }],
      {
        log: logger,
      },
    )
    expect(database.checks()).toBe(1)
    expect(lines).toEqual([])
  })

  it('retries with a growing, jittered delay; one line when it starts waiting and one when the dependency answers', async () => {
    const { logger, lines } = recordingLogger()
    const database = flaky(3)
    const started = Date.now()
    // Jitter drawn at its lowest: delays of half of 250, 500 and 1000 ms.
    await waitForDependencies(
      [{ name: 'database', check: database.check, waitSeconds: 10, setting: 'database.connect_wait' }],
      {
        log: logger,
        random: () => 0,
      },
    )
    const waited = Date.now() - started
    expect(database.checks()).toBe(4)
    expect(waited).toBeGreaterThanOrEqual(125 + 250 + 500 - 30)
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'dependency unreachable while starting; waiting for it'],
      [30, 'dependency answers; starting'],
    ])
    expect(lines[0]).toMatchObject({
      dependency: 'database',
      outcome: 'failing (ECONNREFUSED)',
      wait_s: 10,
      setting: 'database.connect_wait',
    })
    expect(lines[1]!.waited_ms).toBeGreaterThan(0)
  })

  it('past its wait, rejects naming the dependency, the setting and what to do, with exit code 69', async () => {
    const { logger } = recordingLogger()
    const redis = flaky(Infinity)
    const error = await waitForDependencies(
      [{ name: 'redis (state-redis)', check: redis.check, waitSeconds: 0.3, setting: 'redis_connect_wait' }],
      { log: logger },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DependencyUnavailableError)
    expect(error).toBeInstanceOf(UserError)
    expect((error as DependencyUnavailableError).exitCode).toBe(EXIT_UNAVAILABLE)
    expect(EXIT_UNAVAILABLE).toBe(69)
    expect((error as Error).message).toBe(
      'redis (state-redis) did not answer within 0.3 s (redis_connect_wait; last check: failing (ECONNREFUSED)): start it or check its address, then start again; raise redis_connect_wait to wait longer',
    )
    expect(redis.checks()).toBeGreaterThanOrEqual(2)
  })

  it('a check that hangs counts as failing after 2 s; 0 s of wait means one check only', async () => {
    const { logger } = recordingLogger()
    const started = Date.now()
    const error = await waitForDependencies(
      [
        {
          name: 'database',
          check: () => new Promise(() => undefined),
          waitSeconds: 0,
          setting: 'database.connect_wait',
        },
      ],
      { log: logger },
    ).catch((e: unknown) => e)
    expect((error as Error).message).toContain('last check: timed out')
    expect(Date.now() - started).toBeLessThan(4000)
  })

  it('stops at once on what no waiting fixes (a missing database), with its own error', async () => {
    const { logger, lines } = recordingLogger()
    const missing = new UserError('the database "x" does not exist', { hint: 'create it' })
    const error = await waitForDependencies(
      [
        {
          name: 'database',
          check: () => Promise.reject(Object.assign(new Error('database "x" does not exist'), { code: '3D000' })),
          waitSeconds: 60,
          setting: 'database.connect_wait',
          unfixable: (e) => ((e as { code?: string }).code === '3D000' ? missing : undefined),
        },
      ],
      { log: logger },
    ).catch((e: unknown) => e)
    expect(error).toBe(missing)
    expect(lines).toEqual([])
  })

  it('waits for every dependency at once, each within its own setting', async () => {
    const { logger, lines } = recordingLogger()
    const database = flaky(1)
    const redis = flaky(2)
    await waitForDependencies(
      [
        { name: 'database', check: database.check, waitSeconds: 10, setting: 'database.connect_wait' },
        { name: 'redis (queue-bullmq)', check: redis.check, waitSeconds: 10, setting: 'redis_connect_wait' },
      ],
      { log: logger, random: () => 0 },
    )
    expect(lines.filter((l) => l.msg === 'dependency answers; starting').map((l) => l.dependency)).toEqual([
      'database',
      'redis (queue-bullmq)',
    ])
  })
})

describe('listenWhileStarting: the port answers probes while the process starts', () => {
  const LIMITS = {
    max_header_size: 16384,
    headers_timeout: 10,
    request_timeout: 0,
    idle_timeout: 60,
    keep_alive_timeout: 5,
  }
  let starting: StartingServer | undefined
  afterEach(async () => {
    await new Promise<void>((resolve) => {
      if (!starting) return resolve()
      starting.server.close(() => resolve())
      starting.server.closeAllConnections()
    })
    starting = undefined
  })

  it('/health 200, /ready 503 with Retry-After, anything else 503 in the contract format; then hands over', async () => {
    starting = await listenWhileStarting(LIMITS, 0, '127.0.0.1', undefined, '2')
    const url = `http://127.0.0.1:${starting.address.port}`
    const health = await rawRequest(`${url}/health`, 'GET', { agent: false })
    expect(health.status).toBe(200)
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' })
    expect(health.headers['x-mediactl-process']).toBe('2')
    const ready = await rawRequest(`${url}/ready`, 'GET', { agent: false })
    expect(ready.status).toBe(503)
    expect(ready.headers['retry-after']).toBe('5')
    expect(JSON.parse(ready.body)).toEqual({ status: 'starting', checks: {} })
    const api = await rawRequest(`${url}/platforms`, 'POST', { agent: false, body: 'name=x' })
    expect(api.status).toBe(503)
    expect(api.headers['retry-after']).toBe('5')
    expect(api.headers['x-api-version']).toBe('2.14.3')
    expect(api.body).toContain('<status>503</status>')
    expect(api.body).toContain('The service is starting')

    starting.handOver((_req, res) => res.end('served'))
    expect((await rawRequest(`${url}/platforms`, 'GET', { agent: false })).body).toBe('served')
  })

  it('a port in use is refused at once, naming the setting', async () => {
    const port = await freePort()
    const taken = createServer().listen(port, '127.0.0.1')
    await new Promise((resolve) => taken.once('listening', resolve))
    try {
      await expect(listenWhileStarting(LIMITS, port, '127.0.0.1')).rejects.toThrow(
        `127.0.0.1:${port} is already in use by another process`,
      )
    } finally {
      taken.close()
    }
  })
})
