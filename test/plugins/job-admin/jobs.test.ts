import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { text } from '../../helpers/xml.js'
import { makeMedia, startEncodingApp, uploadMedia, waitForStatus } from '../encoding/encoding.helpers.js'
import { INVALID, expectError, makeProfile, userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { createPlatform } from '../players/players.helpers.js'
import { jobOf, jobsSeen, oneJob } from './jobs.helpers.js'

/** The 403 of a caller who administers nothing. */
const ADMINS_ONLY = 'This needs the "platform.edit" permission: jobs are for administrators.'

/**
 * `GET /jobs`, `GET /job/<id>`, `POST /job/<id>/retry|cancel` (an extension, docs/api/jobs.md) on real
 * encodings: P's file fails for want of space, Q's is another tenant's. The jobs wait until a test starts them.
 */
describe('jobs through the API', { timeout: 180_000 }, () => {
  let app: TestApp
  let pAdmin: DigestClient
  let pUploader: DigestClient
  let qAdmin: DigestClient
  let pFile: string
  let qFile: string
  let pJob: string
  let qJob: string

  beforeAll(async () => {
    app = await startEncodingApp({ jobs: false })
    const png = await makeMedia('png', { size: '64x64' })
    // Room for the upload, not for its renditions: P's encoding fails, saying why.
    const p = await createPlatform(app.client, 'Tight', png.length + 10)
    const q = await createPlatform(app.client, 'Other')
    pAdmin = await userWithProfile(app, 'pam', await makeProfile(app, ['platform.view', 'platform.edit'], p))
    pUploader = await userWithProfile(app, 'ulla', await makeProfile(app, ['platform.view', 'file.create'], p))
    qAdmin = await userWithProfile(
      app,
      'quinn',
      await makeProfile(app, ['platform.view', 'platform.edit', 'file.create'], q),
    )
    pFile = await uploadMedia(pUploader, png, 'p-<script>.png')
    qFile = await uploadMedia(qAdmin, png, 'q.png')
    pJob = await jobOf(app.client, pFile)
    qJob = await jobOf(app.client, qFile)
  }, 120_000)
  afterAll(async () => app?.close())

  it('lists every job to the installation administrator, newest first, filtered and paged', async () => {
    const all = await jobsSeen(app.client)
    expect(all.map((job) => job.id)).toEqual([qJob, pJob])
    expect(all[1]).toMatchObject({ kind: 'encoding.encode', state: 'waiting', file: pFile, attempts: '0/3' })
    expect((await jobsSeen(app.client, `?file=${pFile}&state=waiting&kind=encoding.encode`)).map((j) => j.id)).toEqual([
      pJob,
    ])
    expect(await jobsSeen(app.client, '?state=failed')).toEqual([])
    expect(await jobsSeen(app.client, '?kind=encoding.insertlogo')).toEqual([])

    const page = await app.client.get('/jobs', { headers: { Range: 'entities=1-1' } })
    expect(page.headers['content-range']).toBe('entities 1-1/2')
    expect(text(xmlOf(page, 200).jobs.job.id)).toBe(pJob)
    expect((await app.client.get('/jobs', { headers: { Range: 'entities=5-1' } })).status).toBe(416)
    expectError(await app.client.get('/jobs?state=stuck'), 412, INVALID, {
      state: 'must be one of: waiting, running, succeeded, failed, cancelled',
    })
  })

  it("shows a platform's administrator the jobs of its files only; another platform's job is 404", async () => {
    expect((await jobsSeen(pAdmin)).map((job) => job.id)).toEqual([pJob])
    expect((await jobsSeen(pAdmin, `?file=${qFile}`)).map((job) => job.id)).toEqual([])
    expect((await jobsSeen(qAdmin)).map((job) => job.id)).toEqual([qJob])
    expect(oneJob(await pAdmin.get(`/job/${pJob}`))).toMatchObject({ id: pJob, file: pFile, state: 'waiting' })
    const info = xmlOf(await pAdmin.get(`/job/${pJob}`), 200).job
    expect(text(info.file_name)).toBe('p-<script>.png')
    expect(info.file['@href']).toMatch(new RegExp(`/file/${pFile}$`))
    for (const path of [`/job/${qJob}`, '/job/999999', '/job/not-a-number']) {
      expectError(await pAdmin.get(path), 404, `No job "${path.slice(5)}".`)
    }
    for (const action of ['retry', 'cancel']) {
      expectError(await pAdmin.post(`/job/${qJob}/${action}`), 404, `No job "${qJob}".`)
    }
    expect(text(xmlOf(await app.client.get(`/job/${qJob}`), 200).job.state)).toBe('waiting')
  })

  it("refuses a user who administers nothing: 403 for the list and their platform's jobs, 404 for any other", async () => {
    for (const path of ['/jobs', `/job/${pJob}`]) expectError(await pUploader.get(path), 403, ADMINS_ONLY)
    for (const action of ['retry', 'cancel']) {
      expectError(await pUploader.post(`/job/${pJob}/${action}`), 403, ADMINS_ONLY)
      expectError(await pUploader.post(`/job/${qJob}/${action}`), 404, `No job "${qJob}".`)
    }
    expectError(await pUploader.get('/job/999999'), 404, 'No job "999999".')
    expect(oneJob(await app.client.get(`/job/${pJob}`)).state).toBe('waiting')
  })

  it('cancels a waiting job, retries it, and refuses each where the state does not allow it (412)', async () => {
    expectError(
      await pAdmin.post(`/job/${pJob}/retry`),
      412,
      `job ${pJob} is waiting: only failed or cancelled jobs can be retried`,
    )
    const cancelled = oneJob(await pAdmin.post(`/job/${pJob}/cancel`))
    expect(cancelled).toMatchObject({ id: pJob, state: 'cancelled', lastError: 'cancelled by an operator' })
    expect(oneJob(await app.client.get(`/job/${pJob}`)).state).toBe('cancelled')
    expectError(
      await pAdmin.post(`/job/${pJob}/cancel`),
      412,
      `job ${pJob} is cancelled: only waiting or running jobs can be cancelled`,
    )
    expect(oneJob(await pAdmin.post(`/job/${pJob}/retry`))).toMatchObject({ state: 'waiting', attempts: '0/3' })
    expect(oneJob(await pAdmin.get(`/job/${pJob}`)).state).toBe('waiting')
  })

  it('retries a job that failed: it runs again, and fails again for the same reason', async () => {
    await app.kernel.startJobs()
    expect((await waitForStatus(pUploader, pFile)).at(-1)!.status).toBe('failed')
    const failed = oneJob(await pAdmin.get(`/job/${pJob}`))
    expect(failed.state).toBe('failed')
    expect(failed.lastError).toMatch(/^not enough space for the renditions/)
    expect((await jobsSeen(pAdmin, '?state=failed')).map((job) => job.id)).toEqual([pJob])
    expectError(
      await pAdmin.post(`/job/${pJob}/cancel`),
      412,
      `job ${pJob} is failed: only waiting or running jobs can be cancelled`,
    )
    const retried = oneJob(await app.client.post(`/job/${pJob}/retry`))
    expect(retried).toMatchObject({ state: 'waiting', attempts: '0/3' })
    expect((await waitForStatus(pUploader, pFile)).at(-1)!.status).toBe('failed')
    expect(oneJob(await app.client.get(`/job/${pJob}`)).state).toBe('failed')
    expect((await waitForStatus(qAdmin, qFile)).at(-1)!.status).toBe('finished')
    expect(oneJob(await qAdmin.get(`/job/${qJob}`)).state).toBe('succeeded')
  })
})
