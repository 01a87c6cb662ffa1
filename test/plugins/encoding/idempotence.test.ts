import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENCODE_JOB } from '../../../plugins/encoding/index.js'
import type { FileView } from '../../../plugins/files/index.js'
import { type TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { waitFor } from '../../helpers/wait.js'
import { fileRow, storedKeys } from '../files/files.helpers.js'
import { makeMedia, renditionRows, startEncodingApp, uploadMedia, waitForStatus } from './encoding.helpers.js'

/** The run folders (`renditions/<run>/`) holding objects of a file. */
async function runFolders(app: TestApp, file: FileView): Promise<string[]> {
  const prefix = `${file.storagePrefix}renditions/`
  const keys = (await storedKeys(app)).filter((key) => key.startsWith(prefix))
  return [...new Set(keys.map((key) => key.slice(prefix.length).split('/')[0]!))]
}

/** Checks that the stored objects under `renditions/` are exactly the recorded set (and the set exists). */
async function expectOneSet(app: TestApp, slug: string): Promise<string> {
  const file = (await fileRow(app, slug))!
  const rows = await renditionRows(app, file.id)
  expect(rows.length).toBe(14)
  const keys = (await storedKeys(app)).filter((key) => key.startsWith(`${file.storagePrefix}renditions/`))
  for (const key of keys) {
    expect(
      rows.some((r) => (r.storage_key.endsWith('/') ? key.startsWith(r.storage_key) : key === r.storage_key)),
      key,
    ).toBe(true)
  }
  for (const row of rows.filter((r) => !r.storage_key.endsWith('/'))) expect(keys).toContain(row.storage_key)
  expect(file.storedBytes).toBe(file.size + rows.reduce((sum, r) => sum + r.size, 0))
  const folders = await runFolders(app, file)
  expect(folders).toHaveLength(1)
  return folders[0]!
}

/** Stores what a run cut short by a crash may have left: objects no row records. */
async function strayObjects(app: TestApp, file: FileView, run: string): Promise<void> {
  const storage = app.kernel.services.ports.get('storage')
  for (const name of ['flavor-240p.mp4', 'hls/master.m3u8', 'hls/240p/seg-00001.ts', 'snapshot-0.jpg']) {
    await storage.write(`${file.storagePrefix}renditions/${run}/${name}`, Readable.from([Buffer.from('partial')]))
  }
}

describe('encoding runs are idempotent: one set of renditions whatever ran before', () => {
  let app: TestApp
  let gina: DigestClient
  let slug: string

  beforeAll(async () => {
    app = await startEncodingApp({ jobs: false })
    gina = await app.createUser({ username: 'gina' })
    slug = await uploadMedia(gina, await makeMedia('video'), 'again.mp4')
  })
  afterAll(async () => app?.close())

  it('a run removes what a crashed run stored before recording it', async () => {
    const file = (await fileRow(app, slug))!
    expect(file.encodingStatus).toBe('waiting')
    await strayObjects(app, file, 'crashed00001')
    await app.kernel.startJobs()
    expect((await waitForStatus(gina, slug)).at(-1)!.status).toBe('finished')
    expect(await expectOneSet(app, slug)).not.toBe('crashed00001')
  })

  it('running the job again (a crash after the set was recorded) replaces the set: still one', async () => {
    const file = (await fileRow(app, slug))!
    const first = (await runFolders(app, file))[0]!
    await strayObjects(app, file, 'crashed00002')
    const job = await app.kernel.jobs.enqueue(ENCODE_JOB, { fileId: file.id }, { key: `encode:${file.id}` })
    const queue = app.kernel.jobs
    await waitFor(async () => (await queue.get(job.id))!.state === 'succeeded', {
      timeout: 30_000,
      interval: 50,
      message: 'the job to succeed',
    })
    expect((await queue.get(job.id))!.state).toBe('succeeded')
    expect((await fileRow(app, slug))!.encodingStatus).toBe('finished')
    const second = await expectOneSet(app, slug)
    expect([second === first, second === 'crashed00002']).toEqual([false, false])
  })
})
