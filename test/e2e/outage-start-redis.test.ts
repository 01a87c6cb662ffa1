import type { ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, startRedis, stopRedis } from '../helpers/redis-server.js'
import { waitFor } from '../helpers/wait.js'
import { type Running, type Server, childrenOf, cliJson, removeDir, tempDir } from './harness.js'
import { Appliance, JOB_SETTINGS, SEED, crash, seeded } from './outage-start.helpers.js'

/**
 * Redis lost while `serve --processes 2` starts, with state-redis (nonce counts, locks) and
 * queue-bullmq (job signals), on a redis-server of the test's own (restarted empty, as it keeps
 * nothing on disk), and a `mediactl worker` that stays up through every outage. Each trial
 * crashes serve with a video just uploaded, starts it again, kills Redis at a seeded moment of
 * the boot and starts it again: within 20 s of its return both HTTP processes answer /ready
 * 200, the worker has encoded the video (its signal lost with Redis is sent again), and no job
 * is left running.
 */
describe('serve and worker started through a Redis outage (state-redis, queue-bullmq)', { timeout: 120_000 }, () => {
  let redis: ChildProcess | undefined
  let redisPort = 0
  let dir = ''
  let app: Appliance
  let server: Server | undefined
  let worker: Running | undefined
  let bootMs = 0
  const runningJobs = async (): Promise<number> =>
    (await cliJson<{ jobs: { state: string }[] }>(['jobs', 'list', '--state', 'running'], { cwd: dir })).jobs.length

  beforeAll(async () => {
    redisPort = await freePort()
    redis = await startRedis(redisPort)
    dir = tempDir()
    writeFileSync(
      join(dir, 'mediactl.yaml'),
      [
        'data_dir: ./data',
        `redis_url: redis://127.0.0.1:${redisPort}`,
        'state: redis',
        'queue: bullmq',
        'queue-bullmq: { stalled_interval: 5 }',
        ...JOB_SETTINGS,
        '',
      ].join('\n'),
    )
    app = new Appliance(dir)
    await app.init()
    worker = await app.worker()
    const started = Date.now()
    server = await app.serve()
    bootMs = Date.now() - started
  }, 120_000)
  afterAll(async () => {
    await worker?.stop('SIGKILL')
    if (server) await crash(server)
    await stopRedis(redis)
    if (dir) removeDir(dir)
  })

  const random = seeded(SEED + 1)
  const delays = [0, ...Array.from({ length: 3 }, () => random()), 1]
  for (const [i, fraction] of delays.entries()) {
    it(`Redis killed ${fraction === 0 ? 'at once' : `at ${Math.round(fraction * 100)}% of the boot`} (moment ${i + 1}, seed ${SEED + 1})`, async () => {
      const slug = await app.upload()
      await crash(server!)
      server = undefined
      const booting = app.serve()
      booting.catch(() => undefined)
      // The moment is the seeded delay from the start of serve (an injected instant, not a wait for a condition).
      await new Promise((resolve) => setTimeout(resolve, fraction * bootMs))
      await stopRedis(redis)
      redis = await startRedis(redisPort)
      const back = Date.now()
      server = await booting
      await app.recovered(server, back, slug, runningJobs)
      expect(worker!.child.exitCode).toBeNull()
    })
  }

  it('an HTTP process killed (kill -9) while Redis is down starts again and serves once it is back', async () => {
    const slug = await app.upload()
    const [first] = childrenOf(server!.child.pid!)
    await stopRedis(redis)
    process.kill(first!, 'SIGKILL')
    await waitFor(() => server!.stdout().includes('HTTP process exited; starting it again'), {
      message: 'the primary seeing the exit',
    })
    redis = await startRedis(redisPort)
    const back = Date.now()
    await app.recovered(server!, back, slug, runningJobs)
    expect(server!.child.exitCode).toBeNull()
  })

  it('serve and worker started while Redis is down wait for it, answering /health, and serve once it starts 10 s later', async () => {
    const slug = await app.upload()
    await crash(server!)
    server = undefined
    await worker!.stop('SIGKILL')
    worker = undefined
    await stopRedis(redis)
    // Held down 10 s from here; meanwhile serve says it lives but is not ready.
    const downUntil = Date.now() + 10_000
    const { booting, working } = await app.startWhileDown()
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, downUntil - Date.now())))
    redis = await startRedis(redisPort)
    const back = Date.now()
    server = await booting
    worker = await working
    await app.recovered(server, back, slug, runningJobs)
    expect(server.stdout()).toMatch(
      /"dependency":"redis \((state-redis|queue-bullmq)\)".*"msg":"dependency unreachable while starting; waiting for it"/,
    )
    expect(worker.stdout()).toContain('dependency answers; starting')
  })
})
