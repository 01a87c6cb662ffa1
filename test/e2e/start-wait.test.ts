import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawRequest } from '../helpers/digest-client.js'
import { freePort } from '../helpers/redis-server.js'
import { waitFor } from '../helpers/wait.js'
import { cli, removeDir, start, tempDir } from './harness.js'

/**
 * A database (or Redis) that never answers while `serve`, `worker` or `init` start: each waits
 * `database.connect_wait` (`redis_connect_wait`), answering /health meanwhile, then exits 69
 * naming the dependency and the setting. Nothing listens on the ports used here.
 */
describe('serve, worker and init past database.connect_wait and redis_connect_wait', { timeout: 120_000 }, () => {
  let dir = ''
  let env: Record<string, string> = {}

  beforeAll(async () => {
    dir = tempDir()
    writeFileSync(join(dir, 'mediactl.yaml'), 'data_dir: ./data\n')
    const closed = await freePort()
    env = {
      MEDIACTL_SECRET: 'a'.repeat(32),
      MEDIACTL_DATABASE__URL: `postgres://postgres@127.0.0.1:${closed}/mediactl`,
      MEDIACTL_DATABASE__CONNECT_WAIT: '5',
    }
  })
  afterAll(() => removeDir(dir))

  const WAIT_MESSAGE =
    'mediactl: database did not answer within 5 s (database.connect_wait; last check: failing (ECONNREFUSED)): start it or check its address, then start again; raise database.connect_wait to wait longer'

  it('serve answers /health and 503 elsewhere while it waits, then exits 69 saying what to do', async () => {
    const port = await freePort()
    const serving = await start(['serve', '--host', '127.0.0.1', '--port', String(port)], { cwd: dir, env }, '')
    const url = `http://127.0.0.1:${port}`
    await waitFor(
      async () => (await rawRequest(`${url}/health`, 'GET', { agent: false }).catch(() => undefined))?.status === 200,
      {
        timeout: 30_000,
        message: '/health while waiting',
      },
    )
    const ready = await rawRequest(`${url}/ready`, 'GET', { agent: false })
    expect([ready.status, ready.headers['retry-after']]).toEqual([503, '5'])
    const result = await serving.exited
    expect(result.code).toBe(69)
    expect(result.stderr.trim()).toBe(WAIT_MESSAGE)
    expect(result.stdout).toContain('"msg":"dependency unreachable while starting; waiting for it"')
    // Gone with it: the port no longer answers.
    await expect(rawRequest(`${url}/health`, 'GET', { agent: false })).rejects.toThrow(/ECONNREFUSED/)
  })

  it('serve --processes 2: the primary gives up the same way, leaving no HTTP process behind', async () => {
    const port = await freePort()
    const serving = await start(
      ['serve', '--host', '127.0.0.1', '--port', String(port), '--processes', '2'],
      { cwd: dir, env },
      '',
    )
    const url = `http://127.0.0.1:${port}`
    // Its HTTP processes bound the port while the primary waits.
    await waitFor(
      async () => (await rawRequest(`${url}/health`, 'GET', { agent: false }).catch(() => undefined))?.status === 200,
      {
        timeout: 30_000,
        message: '/health while waiting',
      },
    )
    const result = await serving.exited
    expect(result.code).toBe(69)
    expect(result.stderr.trim()).toBe(WAIT_MESSAGE)
    await expect(rawRequest(`${url}/health`, 'GET', { agent: false })).rejects.toThrow(/ECONNREFUSED/)
  })

  it('worker and init exit 69 too; --json says it as JSON', async () => {
    const worker = await cli(['worker'], { cwd: dir, env })
    expect(worker.code).toBe(69)
    expect(worker.stderr.trim()).toBe(WAIT_MESSAGE)
    const init = await cli(['init', '--json'], { cwd: dir, env })
    expect(init.code).toBe(69)
    expect(JSON.parse(init.stdout)).toEqual({
      error: WAIT_MESSAGE.replace('mediactl: ', ''),
    })
  })

  it('one-shot commands do not wait: they fail at once', async () => {
    const started = Date.now()
    const result = await cli(['jobs', 'list'], { cwd: dir, env: { ...env, MEDIACTL_DATABASE__CONNECT_WAIT: '60' } })
    expect(result.code).not.toBe(0)
    expect(Date.now() - started).toBeLessThan(30_000)
  })

  it('Redis: serve waits redis_connect_wait for state-redis and queue-bullmq, then exits 69 naming it', async () => {
    const closed = await freePort()
    const result = await cli(['serve', '--host', '127.0.0.1', '--port', '0'], {
      cwd: dir,
      env: {
        MEDIACTL_SECRET: 'a'.repeat(32),
        MEDIACTL_REDIS_URL: `redis://127.0.0.1:${closed}`,
        MEDIACTL_STATE: 'redis',
        MEDIACTL_QUEUE: 'bullmq',
        MEDIACTL_REDIS_CONNECT_WAIT: '1',
      },
    })
    expect(result.code).toBe(69)
    expect(result.stderr).toMatch(
      /^mediactl: redis \((state-redis|queue-bullmq)\) did not answer within 1 s \(redis_connect_wait; last check: .*\): start it or check its address, then start again; raise redis_connect_wait to wait longer$/m,
    )
  })
})
