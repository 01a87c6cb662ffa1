import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { waitFor } from '../helpers/wait.js'
import { makeMedia, uploadMedia, waitForStatus } from '../plugins/encoding/encoding.helpers.js'
import {
  type Backend,
  Instance,
  type UploadOutcome,
  backends,
  expectJobsAgree,
  expectNoProcessLeft,
  expectStorageExact,
  fileStatus,
  slowUpload,
} from './jobs-crash.helpers.js'

/**
 * Durable jobs (issue 15) against SIGKILL, with real `mediactl serve` and `mediactl worker`
 * processes: an upload's encoding job commits with its file (the outbox) and is found again
 * whatever dies when — between the commit and the transport's signal, mid-upload, mid-encode,
 * or Redis losing every signal. Each test ends with the same checks: every job succeeded and
 * none is left running, each file's status agrees with its job, one set of renditions per
 * file, quotas exact, no orphan bytes in storage, no process left behind.
 *
 * Backends: queue-inline on SQLite always; queue-inline on PostgreSQL with
 * MEDIACTL_TEST_DATABASE_URL; queue-bullmq with MEDIACTL_TEST_REDIS_URL too.
 */

const TIMEOUT = { timeout: 240_000 }

let clipA: Buffer
let clipB: Buffer
let long: Buffer

beforeAll(async () => {
  ;[clipA, clipB, long] = await Promise.all([
    makeMedia('video', { seconds: 3, size: '320x180' }),
    makeMedia('video', { seconds: 4, size: '320x180' }),
    makeMedia('video', { seconds: 20, size: '320x180' }),
  ])
}, 60_000)

/** The same checks after every scenario, `serve` running; stops every process, then looks at the database and storage. */
async function expectAllSettled(app: Instance, expectedFiles: number): Promise<void> {
  const files = await app.waitSettled()
  expect(files.length).toBe(expectedFiles)
  expect(
    files.map((f) => f.status),
    app.logs(),
  ).toEqual(files.map(() => 'finished'))
  if (!app.server) await app.serve()
  await expectJobsAgree(app, files)
  await app.stopAll()
  await expectStorageExact(app)
  await expectNoProcessLeft(app)
}

describe.each(backends())('jobs against SIGKILL: $name', (backend: Backend) => {
  const bullmq = backend.queue === 'bullmq'
  let app: Instance | undefined

  afterEach(async () => {
    await app?.close()
    app = undefined
  })

  it('dies between the commit of an upload and the signal: the job is found after the restart', TIMEOUT, async () => {
    app = await Instance.create(backend)
    // With BullMQ a worker runs throughout: no signal reaches it until a reconciliation sends it.
    if (bullmq) await app.worker()
    const faulty = await app.serve({ MEDIACTL_TEST_FAULT: 'after-job-commit' })
    const cut = await uploadMedia(app.client(), clipA, 'fault.mp4').then(
      () => 'answered',
      (error: Error) => error.message,
    )
    expect(cut).not.toBe('answered')
    const exit = await faulty.exited
    expect(exit.signal, exit.stdout + exit.stderr).toBe('SIGKILL')
    app.server = undefined

    // The file and its job committed together (the outbox).
    const [file] = await app.files()
    expect(file).toMatchObject({ name: 'fault.mp4' })
    const [job] = await app.jobRows()
    expect(job).toMatchObject({ key: `encode:${file!.id}`, subject: file!.slug })
    if (!bullmq) {
      // Nobody runs it meanwhile.
      expect(job!.state).toBe('waiting')
      expect(file!.status).toBe('waiting')
    }

    await app.serve()
    const samples = await waitForStatus(app.client(), file!.slug, ['finished', 'failed'], 120_000)
    expect(samples.at(-1), app.logs()).toEqual({ status: 'finished', progress: 100 })
    // One run: the job was never lost, only not signalled.
    expect(await app.jobEnded(job!.id)).toMatchObject({ state: 'succeeded', attempts: 1 })
    await expectAllSettled(app, 1)
  })

  it('is killed during 5 concurrent uploads: answered ones are encoded, cut ones leave nothing', TIMEOUT, async () => {
    app = await Instance.create(backend)
    const server = await app.serve()
    const worker = bullmq ? await app.worker() : undefined
    const instance = app
    let answered = 0
    let settled = 0
    const kill = (): void => {
      server.child.kill('SIGKILL')
      worker?.child.kill('SIGKILL')
    }
    // Two quick uploads; one that stops halfway (cut mid-body for sure); a slow one (most likely
    // cut mid-body); one paced at random, which the kill finds anywhere from mid-body to
    // committed-but-not-answered, or answered.
    const pacing = [
      { pauseMs: () => 5 },
      { pauseMs: () => 5 },
      { pauseMs: () => 5, stallAfter: clipA.length / 2 },
      { pauseMs: () => 10 + Math.random() * 40 },
      { pauseMs: () => Math.random() * 15 },
    ]
    const uploads = await Promise.all(
      pacing.map(async (pace, i): Promise<UploadOutcome> => {
        await new Promise((resolve) => setTimeout(resolve, i * 30))
        const outcome = await slowUpload(instance, i % 2 ? clipB : clipA, `clip-${i}.mp4`, { chunk: 4096, ...pace })
        // Killed as soon as the second answer arrived: the others are in flight (and at the
        // latest once only the stalled one is left).
        settled += 1
        if (outcome.status === 200) answered += 1
        if (answered >= 2 || settled >= pacing.length - 1) kill()
        return outcome
      }),
    )
    await app.killAll()
    const summary = JSON.stringify(uploads)
    const ok = uploads.filter((u) => u.status === 200)
    expect(ok.length, summary).toBeGreaterThanOrEqual(2)
    expect(
      uploads.filter((u) => u.status !== undefined && u.status !== 200),
      summary,
    ).toEqual([])
    expect(uploads.filter((u) => !u.sentAll).length, `some uploads were cut mid-body: ${summary}`).toBeGreaterThan(0)

    // Cut before the whole body was sent: no file row. Sent but not answered: committed or not.
    const rows = await app.files()
    for (const upload of uploads) {
      const row = rows.find((r) => r.name === upload.name)
      if (upload.status === 200) expect(row?.slug, summary).toBe(upload.slug)
      else if (!upload.sentAll) expect(row, `${upload.name} was cut mid-body: ${summary}`).toBeUndefined()
    }
    expect(rows.every((r) => uploads.some((u) => u.name === r.name))).toBe(true)

    await app.serve()
    if (bullmq) await app.worker()
    const client = app.client()
    for (const upload of ok) {
      const samples = await waitForStatus(client, upload.slug!, ['finished', 'failed'], 120_000)
      expect(samples.at(-1), app.logs()).toEqual({ status: 'finished', progress: 100 })
    }
    const jobs = await app.jobRows()
    // An encoding the kill cut short ran again: its interrupted run counts.
    for (const job of jobs) expect(job.attempts, JSON.stringify(jobs)).toBeLessThanOrEqual(2)
    await expectAllSettled(app, rows.length)
  })

  it('loses its worker mid-encode: another worker takes the job over within the lease', TIMEOUT, async () => {
    const lease = 3
    app = await Instance.create(backend, { lease, consumeInServe: false })
    await app.serve()
    const client = app.client()
    const slug = await uploadMedia(client, long, 'long.mp4')
    // The first worker encodes slowly, so that it is caught running.
    const first = await app.worker(
      { MEDIACTL_ENCODER_FFMPEG__VIDEO__PRESET: 'veryslow', MEDIACTL_ENCODER_FFMPEG__THREADS: '1' },
      ['--concurrency', '1'],
    )
    await waitForStatus(client, slug, ['running', 'finished', 'failed'], 60_000)
    let sample = await fileStatus(client, slug)
    await waitFor(
      async () => {
        sample = await fileStatus(client, slug)
        return sample.status !== 'running' || sample.progress >= 20
      },
      { interval: 50, timeout: 60_000, message: 'the encoding to reach 20 %' },
    )
    expect(sample.status, 'still encoding when killed').toBe('running')
    expect(sample.progress).toBeLessThan(90)
    const [job] = await app.jobRows()
    expect(job).toMatchObject({ state: 'running', attempts: 1 })
    const owner = job!.lease_owner
    expect(owner).toContain(`:${first.child.pid}:`)

    const killed = await first.stop('SIGKILL')
    expect(killed.signal).toBe('SIGKILL')
    app.workers.splice(app.workers.indexOf(first), 1)
    const killedAt = Date.now()
    // Another worker starts; serve's reconciler or the new worker's takes the job back.
    const starting = app.worker({}, ['--concurrency', '1'])
    await waitFor(async () => (await app!.jobRows()).find((j) => j.id === job!.id)!.lease_owner !== owner, {
      timeout: 60_000,
      interval: 100,
      message: 'the job taken back',
    })
    const takenAfter = Date.now() - killedAt
    const second = await starting
    expect(takenAfter, `taken back after ${takenAfter} ms`).toBeLessThan((lease + 5) * 1000)
    expect(app.server!.stdout() + second.stdout()).toMatch(/"msg":"took back a stranded job"/)

    const samples = await waitForStatus(client, slug, ['finished', 'failed'], 120_000)
    expect(samples.at(-1), app.logs()).toEqual({ status: 'finished', progress: 100 })
    // The interrupted run counts: the second worker ran it as attempt 2.
    expect(await app.jobEnded(job!.id)).toMatchObject({ state: 'succeeded', attempts: 2 })
    expect(second.stdout()).toMatch(new RegExp(`"job":"${job!.id}".*"attempt":2.*"msg":"job succeeded"`))
    await expectAllSettled(app, 1)
  })

  it.runIf(bullmq)('loses every Redis key while uploads wait: the reconcilers signal them again', TIMEOUT, async () => {
    app = await Instance.create(backend)
    await app.serve()
    const client = app.client()
    const slugs: string[] = []
    for (const [i, clip] of [clipA, clipB, clipA].entries())
      slugs.push(await uploadMedia(client, clip, `queued-${i}.mp4`))
    const jobs = await app.jobRows()
    expect(jobs.map((j) => j.state)).toEqual(['waiting', 'waiting', 'waiting'])
    const ids = jobs.map((j) => j.id)
    // Each upload was signalled once committed (the signal may follow the answer).
    await waitFor(async () => (await app!.signalled()).join() === ids.join(), { message: 'the uploads signalled' })

    // Flushed while serve runs: its reconciler signals the waiting jobs again.
    expect(await app.flushRedis()).toBeGreaterThan(0)
    expect(await app.redisKeys()).toEqual([])
    await waitFor(async () => (await app!.signalled()).length === ids.length, {
      timeout: 15_000,
      interval: 100,
      message: 'the jobs signalled again by serve',
    })

    // Flushed again with nothing running: a worker started alone signals them itself and runs them.
    await app.stopAll()
    expect(await app.flushRedis()).toBeGreaterThan(0)
    expect(await app.redisKeys()).toEqual([])
    await app.worker()
    await waitFor(async () => (await app!.jobRows()).every((j) => j.state === 'succeeded'), {
      timeout: 120_000,
      interval: 200,
      message: 'every job succeeded',
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${app!.logs()}`)
    })
    expect((await app.jobRows()).map((j) => j.attempts)).toEqual([1, 1, 1])
    await app.serve()
    for (const slug of slugs)
      expect(await fileStatus(app.client(), slug)).toEqual({ status: 'finished', progress: 100 })
    await expectAllSettled(app, 3)
  })
})
