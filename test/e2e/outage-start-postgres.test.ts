import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawRequest } from '../helpers/digest-client.js'
import { type OwnPostgres, canRunPostgres, startPostgres } from '../helpers/postgres-server.js'
import { waitFor } from '../helpers/wait.js'
import { type Server, childrenOf, cli, removeDir, tempDir } from './harness.js'
import { Appliance, JOB_SETTINGS, SEED, crash, seeded } from './outage-start.helpers.js'

/**
 * PostgreSQL lost while `serve --processes 2` starts, on a cluster of the test's own (the
 * shared one is never stopped). Each trial crashes the serve of the trial before with a video
 * just uploaded (its encoding waiting or cut), starts serve again, stops PostgreSQL at a
 * seeded moment of that boot (from the primary's first step to just after it serves), and
 * starts it again: within 20 s of its return both HTTP processes answer /ready 200, the video
 * is encoded, and no job is left running. MEDIACTL_TEST_SEED replays other moments.
 */
describe.skipIf(!canRunPostgres())('serve and worker started through a PostgreSQL outage', { timeout: 120_000 }, () => {
  let pg: OwnPostgres
  let dir = ''
  let app: Appliance
  let server: Server | undefined
  /** How long a boot of serve --processes 2 takes here, measured once: the window the moments are drawn in. */
  let bootMs = 0
  const runningJobs = async (): Promise<number> => {
    const client = await pg.client()
    try {
      return Number((await client.query("select count(*) as n from jobs where state = 'running'")).rows[0].n)
    } finally {
      await client.end()
    }
  }

  beforeAll(async () => {
    // Durable commits: a migration the primary saw committed must survive the immediate stop that follows.
    pg = await startPostgres('mediactl', { durableCommits: true })
    dir = tempDir()
    writeFileSync(
      join(dir, 'mediactl.yaml'),
      [
        'data_dir: ./data',
        // Short timeouts: a request during the outage answers 503 at once rather than after 5 s.
        `database: { url: '${pg.url}', connect_timeout: 2, acquire_timeout: 3 }`,
        ...JOB_SETTINGS,
        '',
      ].join('\n'),
    )
    app = new Appliance(dir)
    await app.init()
    const started = Date.now()
    server = await app.serve()
    bootMs = Date.now() - started
  }, 120_000)
  afterAll(async () => {
    if (server) await crash(server)
    await pg?.close()
    if (dir) removeDir(dir)
  })

  /** One trial: crash with a video queued, boot again, lose PostgreSQL when `moment` resolves, bring it back. */
  const trial = async (moment: (booting: Promise<Server>) => Promise<void>, migrate: boolean): Promise<void> => {
    const slug = await app.upload()
    await crash(server!)
    server = undefined
    // A migration to apply again: the primary's first step is then real work, which the outage may cut.
    if (migrate) expect((await cli(['migrate', 'down'], { cwd: dir })).code).toBe(0)
    const booting = app.serve(migrate ? ['--migrate'] : [])
    booting.catch(() => undefined)
    await moment(booting)
    await pg.stop('immediate')
    await pg.start()
    const back = Date.now()
    server = await booting
    await app.recovered(server, back, slug, runningJobs)
  }

  const random = seeded(SEED)
  // The first step (the primary's wait and migrations), eight drawn over the boot, and just after it serves.
  const delays = [0, ...Array.from({ length: 8 }, () => random())]
  for (const [i, fraction] of delays.entries()) {
    it(`PostgreSQL stopped ${fraction === 0 ? 'at once' : `at ${Math.round(fraction * 100)}% of the boot`} (moment ${i + 1}, seed ${SEED})`, async () => {
      // The moment itself is the seeded delay from the start of serve (an injected instant, not a wait for a condition).
      await trial(() => new Promise((resolve) => setTimeout(resolve, fraction * bootMs)), i < 3)
    })
  }

  it('PostgreSQL stopped right after serve says it serves (moment 10)', async () => {
    await trial(async (booting) => void (await booting), false)
  })

  it('an HTTP process killed (kill -9) while PostgreSQL is down starts again and serves once it is back', async () => {
    const slug = await app.upload()
    const [first] = childrenOf(server!.child.pid!)
    await pg.stop('immediate')
    process.kill(first!, 'SIGKILL')
    await waitFor(() => server!.stdout().includes('HTTP process exited; starting it again'), {
      message: 'the primary seeing the exit',
    })
    // The restarted process waits for the database; the other one answers 503 meanwhile, never a 5xx without Retry-After.
    const during = await rawRequest(server!.url + '/ready', 'GET')
    expect(during.status).toBe(503)
    expect(during.headers['retry-after']).toBe('5')
    await pg.start()
    const back = Date.now()
    await app.recovered(server!, back, slug, runningJobs)
    expect(server!.child.exitCode).toBeNull()
  })

  it('serve and worker started while PostgreSQL is down wait for it, answering /health, and serve once it starts 10 s later', async () => {
    const slug = await app.upload()
    await crash(server!)
    server = undefined
    await pg.stop('immediate')
    // Held down 10 s from here; meanwhile serve says it lives but is not ready.
    const downUntil = Date.now() + 10_000
    const { booting, working } = await app.startWhileDown()
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, downUntil - Date.now())))
    await pg.start()
    const back = Date.now()
    server = await booting
    const worker = await working
    try {
      await app.recovered(server, back, slug, runningJobs)
      expect(server.stdout()).toContain('dependency unreachable while starting; waiting for it')
      expect(worker.stdout()).toContain('dependency unreachable while starting; waiting for it')
      expect(worker.stdout()).toContain('dependency answers; starting')
    } finally {
      await worker.stop('SIGTERM')
    }
  })
})
