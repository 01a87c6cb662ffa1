import { rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { JobRecord } from '../../../src/kernel/index.js'
import { type TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { waitFor } from '../../helpers/wait.js'
import { type XmlObject, parseXml, text } from '../../helpers/xml.js'
import { fileRow, other, storedKeys } from '../files/files.helpers.js'
import { xmlOf } from '../identity/permissions.fixtures.js'
import { fileInfo, makeMedia, renditionRows, startEncodingApp, uploadMedia, waitForStatus } from './encoding.helpers.js'

/**
 * Issue 15, "durable jobs: status never lies": the encoding status a client polls
 * (`GET /file/<slug>/status`), the file info (`GET /file/<slug>`) and the job an operator
 * lists (`kernel.jobs.list({subject})`) tell one story at every step: a run waiting for its
 * retry, retries exhausted, a media failure, a run whose lease was lost, a cancelled job.
 * Real ffmpeg, real storage-fs: a transient failure is a storage that refuses the renditions
 * (a regular file where the file's `renditions/` folder goes), which is no encoder failure.
 */

/** `encoding_retry` of an answer, null when absent. */
interface Retry {
  attempt: number
  maxAttempts: number
  nextTry: Date
}

/** One status poll: the status word, progress and `encoding_retry`. */
interface Sample {
  status: string
  progress: number
  retry: Retry | null
}

const CANCELLED = 'the encoding was cancelled by an operator'
const STORAGE_REFUSED = 'a stored key is its folder, or it is the folder of stored keys'

function retryOf(file: XmlObject): Retry | null {
  const retry = file.encoding_retry as XmlObject | undefined
  if (retry === undefined) return null
  return {
    attempt: Number(text(retry.attempt)),
    maxAttempts: Number(text(retry.max_attempts)),
    nextTry: new Date(text(retry.next_try)),
  }
}

function sampleOf(file: XmlObject): Sample {
  return { status: text(file.encoding_status), progress: Number(text(file.encoding_progress)), retry: retryOf(file) }
}

/** `GET /file/<slug>/status` as the owner sees it. */
async function statusOf(client: DigestClient, slug: string): Promise<Sample> {
  const res = await client.get(`/file/${slug}/status`)
  expect(res.status, res.body).toBe(200)
  return sampleOf(parseXml(res.body).file as XmlObject)
}

/** The file status a job's state shows (success is shown once the renditions are recorded). */
const FILE_STATUS: Record<JobRecord['state'], string> = {
  waiting: 'waiting',
  running: 'running',
  succeeded: 'finished',
  failed: 'failed',
  cancelled: 'failed',
}

/**
 * The file as its owner sees it (status answer and file info) and its jobs as an operator
 * lists them, at a point where nothing moves; asserts the three agree.
 */
async function seen(app: TestApp, client: DigestClient, slug: string) {
  const sample = await statusOf(client, slug)
  const info = await fileInfo(client, slug)
  const jobs = await app.kernel.jobs.list({ subject: slug })
  expect(jobs.length, 'the file has a job').toBeGreaterThan(0)
  const job = jobs[0]!
  expect(sampleOf(info), 'status answer and file info agree').toEqual(sample)
  expect(sample.status, `job ${job.state}, file ${sample.status}`).toBe(FILE_STATUS[job.state])
  if (job.state === 'waiting' && job.attempts > 0) {
    expect(sample.retry).toEqual({ attempt: job.attempts + 1, maxAttempts: job.maxAttempts, nextTry: job.runAfter })
  } else {
    expect(sample.retry).toBeNull()
  }
  const error = info.encoding_error === undefined ? null : text(info.encoding_error)
  if (sample.status === 'failed') expect(error).toBeTruthy()
  else expect(error).toBeNull()
  return { sample, error, job, jobs }
}

/** The newest job of a file once `predicate` holds for it. */
async function jobWhen(
  app: TestApp,
  slug: string,
  predicate: (job: JobRecord) => boolean,
  message: string,
  timeout = 60_000,
): Promise<JobRecord> {
  let found: JobRecord | undefined
  await waitFor(
    async () => {
      found = (await app.kernel.jobs.list({ subject: slug }))[0]
      return found !== undefined && predicate(found)
    },
    { timeout, interval: 30, message },
  )
  return found!
}

/** Polls the owner's status answer in the background until `stop`; every sample, in order (the last one taken by `stop`). */
function watch(client: DigestClient, slug: string): { samples: Sample[]; stop(): Promise<Sample[]> } {
  const samples: Sample[] = []
  let active = true
  const loop = (async () => {
    while (active) {
      samples.push(await statusOf(client, slug))
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  })()
  return {
    samples,
    /** Ends the polling with one last sample, taken now. */
    async stop() {
      active = false
      await loop
      samples.push(await statusOf(client, slug))
      return samples
    },
  }
}

/**
 * Makes storage refuse the renditions of a file: a regular file where its `renditions/`
 * folder goes, so each rendition write fails (a transient failure, no encoder step's). Answers
 * its path, to remove it.
 */
function refuseRenditions(app: TestApp, storagePrefix: string): string {
  const path = join(app.dataDir, 'storage', ...`${storagePrefix}renditions`.split('/'))
  writeFileSync(path, 'not a folder')
  return path
}

/** Ends a job's backoff now (a hand edit, as an impatient operator would make it). */
async function skipBackoff(app: TestApp, job: JobRecord): Promise<void> {
  const { store } = app.kernel.jobs
  const changed = await store
    .table()
    .where({ id: Number(job.id), state: 'waiting' })
    .update({ run_after: store.at(new Date()) })
  expect(changed).toBe(1)
}

/** Every stored key of a file is its source or a key of its recorded renditions (one set, nothing left over). */
async function expectOneSet(app: TestApp, slug: string, extra: string[] = []): Promise<void> {
  const row = (await fileRow(app, slug))!
  const rows = await renditionRows(app, row.id)
  expect(rows.length).toBeGreaterThan(0)
  expect(new Set(rows.map((r) => `${r.kind}:${r.name}`)).size).toBe(rows.length)
  // One run made them all: `renditions/<run id>/...`.
  const runs = new Set(rows.map((r) => r.storage_key.slice(row.storagePrefix.length).split('/')[1]))
  expect(runs.size).toBe(1)
  const keys = (await storedKeys(app)).filter((key) => key.startsWith(row.storagePrefix))
  for (const key of keys) {
    if (key === row.storageKey || extra.includes(key)) continue
    expect(
      rows.some((r) => (r.storage_key.endsWith('/') ? key.startsWith(r.storage_key) : key === r.storage_key)),
      `${key} is a recorded rendition`,
    ).toBe(true)
  }
}

describe('a run failing transiently waits for its retry, then finishes', () => {
  let app: TestApp
  let video: Buffer

  beforeAll(async () => {
    // Jobs started by the test, once the storage refuses the file's renditions.
    app = await startEncodingApp({
      jobs: false,
      config: { jobs: { concurrency: 1, max_attempts: 3, backoff: 30, time_limit: 600 } },
    })
    video = await makeMedia('video')
  })
  afterAll(async () => app?.close())

  it('waiting with encoding_retry (attempt 2 of 3, next_try ~30 s on): status, file info and job agree', async () => {
    const alice = await app.createUser({ username: 'alice' })
    const slug = await uploadMedia(alice, video, 'flaky.mp4')
    const row = (await fileRow(app, slug))!
    const blocker = refuseRenditions(app, row.storagePrefix)

    // Queued, not run yet: waiting, with no retry to show.
    const queued = await seen(app, alice, slug)
    expect(queued.sample).toEqual({ status: 'waiting', progress: 0, retry: null })
    expect([queued.jobs.length, queued.job.state, queued.job.attempts]).toEqual([1, 'waiting', 0])

    const watching = watch(alice, slug)
    expect(await app.kernel.startJobs()).toBe(true)
    const failed = await jobWhen(
      app,
      slug,
      (job) => job.attempts === 1 && job.state === 'waiting',
      'the first run to fail',
    )
    const samples = await watching.stop()
    expect(samples.map((s) => s.status)).toContain('running')
    expect(samples.some((s) => s.status === 'failed' || s.status === 'finished')).toBe(false)

    const { sample, job, jobs } = await seen(app, alice, slug)
    expect(jobs.map((j) => j.id)).toEqual([failed.id])
    expect(job.lastError).toMatch(/^encoding failed: storage-fs cannot store "/)
    expect(job.lastError).toContain(STORAGE_REFUSED)
    expect(job.lastError).toContain(`${row.storagePrefix}renditions/`)
    expect(sample.status).toBe('waiting')
    expect(sample.progress).toBe(0)
    expect(sample.retry).toEqual({ attempt: 2, maxAttempts: 3, nextTry: job.runAfter })
    // The backoff: 30 s ±25 % from the failure, still ahead.
    const delay = job.runAfter.getTime() - job.updatedAt.getTime()
    expect(delay).toBeGreaterThanOrEqual(22_500 - 50)
    expect(delay).toBeLessThanOrEqual(37_500)
    expect(job.runAfter.getTime()).toBeGreaterThan(Date.now() + 15_000)

    // Files are private: another user of the platform, or of another platform, does not see it.
    const bob = await app.createUser({ username: 'bob' })
    const platform = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Elsewhere', max_users: 0, max_space: 0 } }), 201)
        .platform.slug,
    )
    const mallory = await app.createUser({ username: 'mallory', platform })
    expect([
      (await bob.get(`/file/${slug}/status`)).status,
      (await mallory.get(`/file/${slug}/status`)).status,
    ]).toEqual([404, 404])

    // Nothing runs it while it waits (nor does the reconciler queue another job).
    await app.kernel.jobs.reconcileNow()
    const still = await seen(app, alice, slug)
    expect(still.sample).toEqual(sample)
    expect(still.jobs).toHaveLength(1)
    expect(still.job).toMatchObject({ state: 'waiting', attempts: 1, runAfter: job.runAfter })

    // Storage accepts the renditions again; the backoff is cut short: the second attempt finishes.
    rmSync(blocker)
    const after = watch(alice, slug)
    await skipBackoff(app, job)
    await waitForStatus(alice, slug, ['finished', 'failed'])
    const done = await jobWhen(app, slug, (j) => j.state === 'succeeded', 'the job to succeed')
    const seq = await after.stop()
    expect(seq.some((s) => s.status === 'failed')).toBe(false)
    // Waiting (with its retry) until claimed, then running, never back.
    const firstRunning = seq.findIndex((s) => s.status === 'running')
    for (const s of seq.slice(0, firstRunning === -1 ? seq.length : firstRunning)) {
      expect(s.status === 'waiting' || s.status === 'finished').toBe(true)
      if (s.status === 'waiting') expect(s.retry).toEqual(sample.retry)
    }
    if (firstRunning !== -1) expect(seq.slice(firstRunning).every((s) => s.status !== 'waiting')).toBe(true)

    const end = await seen(app, alice, slug)
    expect(end.sample).toEqual({ status: 'finished', progress: 100, retry: null })
    expect(end.jobs).toHaveLength(1)
    expect(end.job).toMatchObject({ id: done.id, state: 'succeeded', attempts: 2, progress: 100, lastError: null })
    await expectOneSet(app, slug)
  }, 90_000)
})

describe('retries exhausted; media failures', () => {
  let app: TestApp
  const blockers: string[] = []

  beforeAll(async () => {
    app = await startEncodingApp({
      jobs: false,
      config: { jobs: { concurrency: 1, max_attempts: 2, backoff: 0.2, time_limit: 600 } },
    })
  })
  afterEach(() => {
    // A blocker the test did not remove (it failed): the folder may have been made since.
    for (const path of blockers.splice(0)) if (statSync(path, { throwIfNoEntry: false })?.isFile()) rmSync(path)
  })
  afterAll(async () => app?.close())

  it('a persistent storage failure: failed after attempt 2 of 2 with the reason, no job left; retry finishes it', async () => {
    const carol = await app.createUser({ username: 'carol' })
    const slug = await uploadMedia(carol, await makeMedia('video'), 'stuck.mp4')
    const row = (await fileRow(app, slug))!
    const blocker = refuseRenditions(app, row.storagePrefix)
    blockers.push(blocker)

    const watching = watch(carol, slug)
    expect(await app.kernel.startJobs()).toBe(true)
    await waitForStatus(carol, slug, ['failed', 'finished'])
    const samples = await watching.stop()
    // On the way: never finished, and any retry shown was attempt 2 of 2.
    expect(samples.some((s) => s.status === 'finished')).toBe(false)
    for (const s of samples.filter((x) => x.retry))
      expect([s.status, s.retry!.attempt, s.retry!.maxAttempts]).toEqual(['waiting', 2, 2])
    const failed = await jobWhen(app, slug, (job) => job.state === 'failed', 'the job to fail')

    const { sample, error, job, jobs } = await seen(app, carol, slug)
    expect(jobs.map((j) => j.id)).toEqual([failed.id])
    expect(job).toMatchObject({ state: 'failed', attempts: 2, maxAttempts: 2 })
    expect(sample).toEqual({ status: 'failed', progress: sample.progress, retry: null })
    expect(error).toBe(job.lastError)
    expect(error).toMatch(/^encoding failed: storage-fs cannot store "/)
    expect(error).toContain(STORAGE_REFUSED)
    // Nothing of the failed runs stays in storage.
    const keys = (await storedKeys(app)).filter((key) => key.startsWith(row.storagePrefix))
    expect(keys.sort()).toEqual([row.storageKey, `${row.storagePrefix}renditions`].sort())
    expect(await renditionRows(app, row.id)).toEqual([])

    // No live job, and the reconciler queues none: a failed file is settled.
    expect(await app.kernel.jobs.list({ subject: slug, state: 'waiting' })).toEqual([])
    expect(await app.kernel.jobs.list({ subject: slug, state: 'running' })).toEqual([])
    await app.kernel.jobs.reconcileNow()
    const after = await seen(app, carol, slug)
    expect(after.jobs.map((j) => `${j.id}:${j.state}`)).toEqual([`${job.id}:failed`])
    expect(after.error).toBe(error)

    // Storage mended, the operator retries the job: all attempts available again, it finishes.
    rmSync(blocker)
    const retried = await app.kernel.jobs.retry(job.id)
    expect(retried).toMatchObject({ id: job.id, state: 'waiting', attempts: 0, maxAttempts: 2 })
    await waitForStatus(carol, slug, ['finished', 'failed'])
    await jobWhen(app, slug, (j) => j.state === 'succeeded', 'the retried job to succeed')
    const end = await seen(app, carol, slug)
    expect(end.sample).toEqual({ status: 'finished', progress: 100, retry: null })
    expect(end.jobs).toHaveLength(1)
    expect(end.job).toMatchObject({ id: job.id, state: 'succeeded', attempts: 1, lastError: null })
    await expectOneSet(app, slug)
  }, 90_000)

  it('a media failure (random bytes or a truncated MP4, named .mp4): failed at once, attempt 1, no retry queued', async () => {
    const dave = await app.createUser({ username: 'dave' })
    const camera = await makeMedia('video', { faststart: false })
    for (const [data, name] of [
      [other(64 * 1024), 'noise.mp4'],
      [camera.subarray(0, Math.floor(camera.length / 3)), 'cut.mp4'],
    ] as const) {
      const slug = await uploadMedia(dave, data, name)
      const watching = watch(dave, slug)
      await waitForStatus(dave, slug, ['failed', 'finished'])
      const failed = await jobWhen(app, slug, (job) => job.state === 'failed', `the job of ${name} to fail`)
      const samples = await watching.stop()
      // Waiting for its first run, then running, then failed: never waiting for a retry.
      expect(samples.at(-1)!.status, name).toBe('failed')
      expect(samples.every((s) => s.retry === null)).toBe(true)
      const ran = samples.findIndex((s) => s.status !== 'waiting')
      expect(samples.slice(ran).map((s) => s.status)).not.toContain('waiting')

      const { sample, error, job, jobs } = await seen(app, dave, slug)
      expect(jobs.map((j) => j.id)).toEqual([failed.id])
      // Attempts were left (1 of 2) and none is used: running again cannot mend it.
      expect(job).toMatchObject({ state: 'failed', attempts: 1, maxAttempts: 2 })
      expect(sample.retry).toBeNull()
      expect(error, name).toBe(job.lastError)
      expect(error, name).toMatch(/^(not a media file the encoder can read|the encoder could not process)/)
      await app.kernel.jobs.reconcileNow()
      const after = await seen(app, dave, slug)
      expect(after.jobs.map((j) => `${j.id}:${j.state}:${j.attempts}`)).toEqual([`${job.id}:failed:1`])
    }
  }, 90_000)
})

describe('a run whose lease is lost is taken back', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startEncodingApp({
      config: { jobs: { concurrency: 1, max_attempts: 3, backoff: 0.2, time_limit: 600, lease: 1 } },
    })
  })
  afterAll(async () => app?.close())

  it('waiting (with its retry) or running again, never stuck running without a lease; finished with one set', async () => {
    const erin = await app.createUser({ username: 'erin' })
    const video = await makeMedia('video', { seconds: 12 })
    const takenBefore = app.kernel.jobs.stats.takenBack
    const slug = await uploadMedia(erin, video, 'long.mp4')
    // Running, its encoder under way.
    const running = await jobWhen(app, slug, (job) => job.state === 'running' && job.attempts === 1, 'the first run')
    await waitFor(async () => (await statusOf(erin, slug)).progress > 3, { timeout: 30_000, message: 'progress' })

    // The lease is lost: another owner's, expired (as when this process stalled past it).
    const { store } = app.kernel.jobs
    const stolen = await store
      .table()
      .where({ id: Number(running.id), state: 'running', attempts: 1 })
      .update({ lease_owner: 'elsewhere:4242:deadbeef', lease_until: store.at(new Date(Date.now() - 10_000)) })
    expect(stolen, 'the first run was still running').toBe(1)
    const stolenAt = Date.now()

    // Until the job ends: each look at the file between two equal looks at the job (nothing
    // moved meanwhile) agrees with it; it is taken back within the reaper's round, never stuck.
    const seenStates: string[] = []
    let checked = 0
    let last = ''
    const look = async (): Promise<boolean> => {
      const job = (await app.kernel.jobs.list({ subject: slug }))[0]!
      const lease = (await store
        .table()
        .select('lease_owner')
        .where({ id: Number(job.id) })
        .first()) as {
        lease_owner: string | null
      }
      const sample = await statusOf(erin, slug)
      const again = (await app.kernel.jobs.list({ subject: slug }))[0]!
      seenStates.push(`${job.state}:${job.attempts}`)
      expect(sample.status).not.toBe('failed')
      if (job.state === 'running' && job.attempts === 1) {
        expect(Date.now() - stolenAt, 'stuck running with a lost lease').toBeLessThan(10_000)
      }
      if (job.state === 'waiting') {
        expect([job.attempts, job.runAfter.getTime() <= Date.now()]).toEqual([1, true])
        expect(job.lastError).toMatch(/^interrupted: the process running it stopped/)
      }
      const still =
        again.state === job.state &&
        again.attempts === job.attempts &&
        again.updatedAt.getTime() === job.updatedAt.getTime()
      if (still) {
        checked += 1
        // The lease was read between two equal looks: it is that state's (a run ending in between clears it).
        if (job.state === 'waiting') expect(lease.lease_owner).toBeNull()
        if (job.state === 'running' && job.attempts === 2) expect(lease.lease_owner).toBe(app.kernel.jobs.owner)
        if (job.state === 'waiting') {
          expect(sample).toEqual({
            status: 'waiting',
            progress: 0,
            retry: { attempt: 2, maxAttempts: 3, nextTry: job.runAfter },
          })
        } else if (job.state === 'running') {
          // Success (renditions recorded) and finished are the handler's, just before the job succeeds.
          expect(['running', 'success', 'finished']).toContain(sample.status)
          expect(sample.retry).toBeNull()
        } else {
          expect([job.state, sample.status]).toEqual(['succeeded', 'finished'])
        }
      }
      last = job.state
      return job.state === 'succeeded'
    }
    await waitFor(look, { timeout: 60_000, interval: 30, message: () => `the job (still ${last}) to succeed` })
    expect(checked).toBeGreaterThan(0)
    expect(seenStates).toContain('succeeded:2')
    expect(app.kernel.jobs.stats.takenBack).toBe(takenBefore + 1)

    const end = await seen(app, erin, slug)
    expect(end.sample).toEqual({ status: 'finished', progress: 100, retry: null })
    expect(end.jobs).toHaveLength(1)
    expect(end.job).toMatchObject({ state: 'succeeded', attempts: 2, lastError: null })
    await expectOneSet(app, slug)
  }, 90_000)
})

describe('an operator cancels waiting jobs', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startEncodingApp({
      jobs: false,
      config: { jobs: { concurrency: 1, max_attempts: 3, backoff: 30, time_limit: 600 } },
    })
  })
  afterAll(async () => app?.close())

  it('a queued job and one waiting for its retry: failed "cancelled by an operator", never run; retry finishes them', async () => {
    const frank = await app.createUser({ username: 'frank' })
    const video = await makeMedia('video')
    const queuedSlug = await uploadMedia(frank, video, 'never.mp4')
    const retrySlug = await uploadMedia(frank, video, 'later.mp4')
    const blocker = refuseRenditions(app, (await fileRow(app, retrySlug))!.storagePrefix)

    // A job that never ran, cancelled before any process runs jobs.
    const queued = (await app.kernel.jobs.list({ subject: queuedSlug }))[0]!
    expect(await app.kernel.jobs.cancel(queued.id)).toMatchObject({ state: 'cancelled', attempts: 0 })
    const cancelled = await seen(app, frank, queuedSlug)
    expect(cancelled.sample).toEqual({ status: 'failed', progress: 0, retry: null })
    expect(cancelled.error).toBe(CANCELLED)

    // Jobs run: the other file's first run fails and waits for its retry. Queued first, the
    // cancelled job would have been claimed first: it never runs.
    expect(await app.kernel.startJobs()).toBe(true)
    const waiting = await jobWhen(
      app,
      retrySlug,
      (j) => j.state === 'waiting' && j.attempts === 1,
      'the first run to fail',
    )
    expect((await seen(app, frank, retrySlug)).sample.retry).toMatchObject({ attempt: 2, maxAttempts: 3 })
    const still = await seen(app, frank, queuedSlug)
    expect(still.job).toMatchObject({ id: queued.id, state: 'cancelled', attempts: 0, progress: 0 })
    expect(still.error).toBe(CANCELLED)

    // Cancelled while it waits for its retry: failed, its retry gone from the answers.
    expect(await app.kernel.jobs.cancel(waiting.id)).toMatchObject({ state: 'cancelled', attempts: 1 })
    const stopped = await seen(app, frank, retrySlug)
    expect(stopped.sample).toEqual({ status: 'failed', progress: 0, retry: null })
    expect(stopped.error).toBe(CANCELLED)
    expect((await frank.get(`/file/${retrySlug}/status`)).body).not.toContain('encoding_retry')

    // The reconciler leaves cancelled work alone; a cancelled job is not cancelled twice.
    await app.kernel.jobs.reconcileNow()
    for (const slug of [queuedSlug, retrySlug]) {
      expect((await app.kernel.jobs.list({ subject: slug })).map((j) => j.state)).toEqual(['cancelled'])
    }
    await expect(app.kernel.jobs.cancel(queued.id)).rejects.toThrow(/only waiting or running jobs can be cancelled/)

    // Retried by the operator: both run and finish, each with its one job.
    rmSync(blocker)
    for (const job of [queued, waiting]) {
      expect(await app.kernel.jobs.retry(job.id)).toMatchObject({ id: job.id, state: 'waiting', attempts: 0 })
    }
    for (const slug of [queuedSlug, retrySlug]) {
      await waitForStatus(frank, slug, ['finished', 'failed'])
      await jobWhen(app, slug, (j) => j.state === 'succeeded', `the job of ${slug} to succeed`)
      const end = await seen(app, frank, slug)
      expect(end.sample).toEqual({ status: 'finished', progress: 100, retry: null })
      expect(end.jobs).toHaveLength(1)
      expect(end.job).toMatchObject({ state: 'succeeded', attempts: 1, lastError: null })
      await expectOneSet(app, slug)
    }
  }, 90_000)
})

describe('an operator cancels running jobs', () => {
  let app: TestApp

  beforeAll(async () => {
    // A lease of 3 s: another process's cancel is seen at the next heartbeat, within a second.
    app = await startEncodingApp({ config: { jobs: { concurrency: 1, max_attempts: 3, lease: 3, time_limit: 600 } } })
  })
  afterAll(async () => app?.close())

  /** Uploads a video, waits until its encoding runs; answers its slug and job. */
  async function running(client: DigestClient, name: string): Promise<{ slug: string; job: JobRecord }> {
    const slug = await uploadMedia(client, await makeMedia('video', { seconds: 12, size: '640x360' }), name)
    const job = await jobWhen(app, slug, (j) => j.state === 'running', `the encoding of ${name} to run`)
    return { slug, job }
  }

  /** The run ended without recording anything: failed "cancelled", no rendition rows or objects, the job cancelled. */
  async function endsCancelled(client: DigestClient, slug: string, job: JobRecord): Promise<void> {
    const row = (await fileRow(app, slug))!
    await waitFor(
      async () =>
        (await storedKeys(app)).filter((key) => key.startsWith(`${row.storagePrefix}renditions/`)).length === 0,
      { timeout: 60_000, message: 'the cancelled run to remove what it stored' },
    )
    const end = await seen(app, client, slug)
    expect(end.job).toMatchObject({ id: job.id, state: 'cancelled' })
    expect(end.sample).toMatchObject({ status: 'failed', retry: null })
    expect(end.error).toBe(CANCELLED)
    expect(await renditionRows(app, row.id)).toEqual([])
  }

  it('in this process: the run stops at once, records nothing; the file stays failed; retry finishes it', async () => {
    const gail = await app.createUser({ username: 'gail' })
    const { slug, job } = await running(gail, 'stop-now.mp4')
    const samples = watch(gail, slug)
    expect(await app.kernel.jobs.cancel(job.id)).toMatchObject({ state: 'cancelled' })
    await endsCancelled(gail, slug, job)
    // Once failed "cancelled", the file never showed anything else (no late success or finished).
    const all = await samples.stop()
    const after = all.slice(all.findIndex((s) => s.status === 'failed'))
    expect(new Set(after.map((s) => s.status))).toEqual(new Set(['failed']))

    expect(await app.kernel.jobs.retry(job.id)).toMatchObject({ state: 'waiting', attempts: 0 })
    await waitForStatus(gail, slug, ['finished'])
    await jobWhen(app, slug, (j) => j.state === 'succeeded', 'the retried job to succeed')
    await expectOneSet(app, slug)
  }, 120_000)

  it('from another process (the row alone): the run stops at its heartbeat and its result is refused', async () => {
    const hugo = await app.createUser({ username: 'hugo' })
    const { slug, job } = await running(hugo, 'stop-there.mp4')
    // What `mediactl jobs cancel` does from another process: the row changes, this process is not told.
    expect(await app.kernel.jobs.changes.cancel(job.id)).toMatchObject({ state: 'cancelled' })
    await endsCancelled(hugo, slug, job)
  }, 120_000)
})
