import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JobRecord } from '../../../src/kernel/index.js'
import { type TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { waitFor } from '../../helpers/wait.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { fileRow, storedKeys, usedSpace } from '../files/files.helpers.js'
import { makeProfile, userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import {
  digestBytes,
  expectFailure,
  fileInfo,
  makeMedia,
  pathOf,
  renditionRows,
  sha1,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from './encoding.helpers.js'

/** `POST /file/<slug>/snapshots` with a picture in `file_upload`. */
const postPicture = (client: DigestClient, slug: string, data: Buffer, field = 'file_upload') =>
  client.post(`/file/${slug}/snapshots`, multipartRequest([{ name: field, filename: 'cover.png', data }]))

/** Waits until the queue holds the file's encoding job in `state`; the job. */
async function jobOf(app: TestApp, fileId: number, state: 'failed' | 'succeeded') {
  let job: JobRecord | undefined
  await waitFor(
    async () =>
      (job = (await app.kernel.jobs.list({ limit: 1000 })).find((j) => j.payload.fileId === fileId))?.state === state,
    { timeout: 15_000, interval: 50, message: `the job of file ${fileId} to be ${state}` },
  )
  return job!
}

describe('renditions count in quotas; custom snapshots', () => {
  let app: TestApp
  let video: Buffer

  beforeAll(async () => {
    app = await startEncodingApp({ config: { encoding: { max_snapshot_size: 200_000 } } })
    video = await makeMedia('video')
  })
  afterAll(async () => app?.close())

  it('used_space counts the renditions; deleting the file removes its rows and every stored byte', async () => {
    const carol = await app.createUser({ username: 'carol' })
    const before = await usedSpace(app)
    const slug = await uploadMedia(carol, video, 'counted.mp4')
    await waitForStatus(carol, slug)
    const row = (await fileRow(app, slug))!
    const rows = await renditionRows(app, row.id)
    expect(rows.length).toBeGreaterThan(10)
    const renditions = rows.reduce((sum, r) => sum + r.size, 0)
    expect(row.storedBytes).toBe(video.length + renditions)
    expect(await usedSpace(app)).toBe(before + video.length + renditions)
    expect((await storedKeys(app)).filter((k) => k.startsWith(row.storagePrefix)).length).toBeGreaterThan(15)

    expect((await carol.delete(`/file/${slug}`)).status).toBe(204)
    expect(await renditionRows(app, row.id)).toEqual([])
    expect((await storedKeys(app)).filter((k) => k.startsWith(row.storagePrefix))).toEqual([])
    expect(await usedSpace(app)).toBe(before)
  })

  it('a nearly full platform: the encoding fails with the reason, nothing is kept; more space and a retry finish it', async () => {
    const res = await app.client.post('/platforms', {
      form: { name: 'Tight', max_users: 0, max_space: video.length + 2000 },
    })
    const platform = text(xmlOf(res, 201).platform.slug)
    const profile = await makeProfile(app, ['file.create', 'file.edit', 'file.delete'], platform)
    const dave = await userWithProfile(app, 'dave', profile)
    const slug = await uploadMedia(dave, video, 'too-big.mp4')
    await waitForStatus(dave, slug)
    const info = await fileInfo(dave, slug)
    expect(text(info.encoding_status)).toBe('failed')
    expect(text(info.encoding_error)).toMatch(
      new RegExp(
        `^not enough space for the renditions \\(\\d+ bytes\\): exceeds the platform's space of ${video.length + 2000} bytes \\(2000 bytes left\\)$`,
      ),
    )
    const row = (await fileRow(app, slug))!
    expect(await renditionRows(app, row.id)).toEqual([])
    expect((await storedKeys(app)).filter((k) => k.startsWith(row.storagePrefix))).toEqual([row.storageKey])
    expect(await usedSpace(app, platform)).toBe(video.length)

    // What `mediactl jobs retry` does, once the platform has room.
    const job = await jobOf(app, row.id, 'failed')
    expect((await app.client.put(`/platform/${platform}`, { form: { max_space: 0 } })).status).toBe(200)
    await app.kernel.jobs.retry(job.id)
    const samples = await waitForStatus(dave, slug, ['finished'])
    expect(samples.at(-1)!.status).toBe('finished')
    expect(await usedSpace(app, platform)).toBe((await fileRow(app, slug))!.storedBytes)
    expect((await fileRow(app, slug))!.storedBytes).toBeGreaterThan(video.length)
    await jobOf(app, row.id, 'succeeded')
  })

  describe('custom snapshots', () => {
    let erin: DigestClient
    let slug: string

    beforeAll(async () => {
      const profile = await makeProfile(app, ['file.create', 'file.edit'], 'default', 0)
      erin = await userWithProfile(app, 'erin', profile)
      slug = await uploadMedia(erin, video, 'with-cover.mp4')
      await waitForStatus(erin, slug)
    })

    it('a picture in file_upload becomes snapshot "custom", selected, and the thumbnail; it counts in stored bytes', async () => {
      const row = (await fileRow(app, slug))!
      const png = await makeMedia('png', { size: '64x48' })
      const res = await postPicture(erin, slug, png)
      expect(res.status, res.body).toBe(200)
      const snapshots = list<XmlObject>((parseXml(res.body).snapshots as XmlObject).snapshot)
      expect(snapshots.map((s) => s['@id'])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'custom'])
      expect(snapshots.filter((s) => s['@selected']).map((s) => s['@id'])).toEqual(['custom'])
      const custom = await digestBytes(erin, pathOf(snapshots.at(-1)!['@src'] as string))
      expect([custom.status, custom.headers['content-type']]).toEqual([200, 'image/jpeg'])
      expect(custom.body.subarray(0, 3).toString('hex')).toBe('ffd8ff')
      const thumbnail = await digestBytes(erin, pathOf(text((await fileInfo(erin, slug)).thumbnail)))
      expect(sha1(thumbnail.body)).toBe(sha1(custom.body))
      expect((await fileRow(app, slug))!.storedBytes).toBe(row.storedBytes + custom.body.length)

      // Another picture replaces it: one custom image stored.
      const again = await postPicture(erin, slug, await makeMedia('jpeg', { size: '48x48' }))
      expect(again.status, again.body).toBe(200)
      const customKeys = (await storedKeys(app)).filter((k) => k.startsWith(`${row.storagePrefix}custom/`))
      expect(customKeys).toHaveLength(1)
      // Selecting a numbered snapshot again.
      const back = await erin.post(`/file/${slug}/snapshots`, { form: { id: '0' } })
      const selected = list<XmlObject>((parseXml(back.body).snapshots as XmlObject).snapshot).filter(
        (s) => s['@selected'],
      )
      expect(selected.map((s) => s['@id'])).toEqual(['0'])
      const reselected = await erin.post(`/file/${slug}/snapshots`, { form: { id: 'custom' } })
      expect(reselected.status).toBe(200)
    })

    it('what is not a picture is 412; a picture over encoding.max_snapshot_size is 413; nothing is kept', async () => {
      const keys = await storedKeys(app)
      expectFailure(await postPicture(erin, slug, Buffer.from('just text, no picture')), 412, {
        file_upload: 'is not a picture the encoder can read (JPEG, PNG, GIF, WebP, BMP, TIFF, ...)',
      })
      expectFailure(await postPicture(erin, slug, video), 412, { file_upload: /^is not a picture/ })
      expectFailure(await postPicture(erin, slug, Buffer.alloc(300_000, 1)), 413)
      expect(await storedKeys(app)).toEqual(keys)
    })

    it('a custom picture that does not fit the profile quota is 412, naming file_upload', async () => {
      const profile = await makeProfile(app, ['file.create', 'file.edit'], 'default', 0)
      const frank = await userWithProfile(app, 'frank', profile)
      const own = await uploadMedia(frank, await makeMedia('png', { size: '32x32' }), 'small.png')
      await waitForStatus(frank, own)
      const quota = (await fileRow(app, own))!.storedBytes + 100
      expect((await app.client.put(`/profile/${profile}`, { form: { quota } })).status).toBe(200)
      expectFailure(await postPicture(frank, own, await makeMedia('png', { size: '640x480' })), 412, {
        file_upload: `exceeds your profile's quota of ${quota} bytes (100 bytes left)`,
      })
    })
  })
})
