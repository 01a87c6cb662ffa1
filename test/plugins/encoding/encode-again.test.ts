import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { text } from '../../helpers/xml.js'
import { fileRow, usedSpace } from '../files/files.helpers.js'
import { INVALID, NEEDS, expectError, makeProfile, userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { fileInfo, makeMedia, renditionRows, startEncodingApp, uploadMedia, waitForStatus } from './encoding.helpers.js'

/**
 * `POST /file/<slug>/encoding` (an extension: the console's "Encode again"): a failed encoding retried once the
 * platform has room, a finished one made again, refused while one is coming; the owner with file.edit only.
 */
describe('encoding a file again', { timeout: 180_000 }, () => {
  let app: TestApp
  let video: Buffer
  let platform: string
  let dave: DigestClient
  let slug: string

  beforeAll(async () => {
    app = await startEncodingApp()
    video = await makeMedia('video')
    // Room for the upload, not for its renditions: the first encoding fails with the reason.
    const res = await app.client.post('/platforms', {
      form: { name: 'Tight', max_users: 0, max_space: video.length + 2000 },
    })
    platform = text(xmlOf(res, 201).platform.slug)
    dave = await userWithProfile(app, 'dave', await makeProfile(app, ['file.create', 'file.edit'], platform))
    slug = await uploadMedia(dave, video, 'lecture.mp4')
    await waitForStatus(dave, slug)
  }, 120_000)
  afterAll(async () => app?.close())

  it('retries a failed encoding: failed again while the platform is full, finished once it has room', async () => {
    expect(text((await fileInfo(dave, slug)).encoding_status)).toBe('failed')
    const again = await dave.post(`/file/${slug}/encoding`)
    const status = xmlOf(again, 202).file
    expect([text(status.encoding_status), text(status.encoding_progress)]).toEqual(['waiting', '0'])
    expect((await waitForStatus(dave, slug)).at(-1)!.status).toBe('failed')
    expect(text((await fileInfo(dave, slug)).encoding_error)).toMatch(/^not enough space for the renditions/)

    expect((await app.client.put(`/platform/${platform}`, { form: { max_space: 0 } })).status).toBe(200)
    expect((await dave.post(`/file/${slug}/encoding`)).status).toBe(202)
    expect((await waitForStatus(dave, slug)).at(-1)!.status).toBe('finished')
    const row = (await fileRow(app, slug))!
    expect((await renditionRows(app, row.id)).length).toBeGreaterThan(10)
    expect(await usedSpace(app, platform)).toBe(row.storedBytes)
  })

  it('makes a finished encoding again, the renditions replaced, and refuses a second request meanwhile', async () => {
    const row = (await fileRow(app, slug))!
    const before = (await renditionRows(app, row.id)).length
    expect((await dave.post(`/file/${slug}/encoding`)).status).toBe(202)
    // Waiting or already running, by the time it asks: either way its encoding is coming.
    const refused = await dave.post(`/file/${slug}/encoding`)
    const state = /is being encoded already \((waiting|running)\)/.exec(refused.body)?.[1] ?? 'none'
    expectError(refused, 412, INVALID, {
      file: `is being encoded already (${state}): wait until it is finished or failed`,
    })
    expect((await waitForStatus(dave, slug)).at(-1)!.status).toBe('finished')
    expect((await renditionRows(app, row.id)).length).toBe(before)
    expect(await usedSpace(app, platform)).toBe((await fileRow(app, slug))!.storedBytes)
  })

  it('the owner only (404 for anyone else, an administrator too), with file.edit (403)', async () => {
    expect((await app.client.post(`/file/${slug}/encoding`)).status).toBe(404)
    const erin = await app.createUser({ username: 'erin' })
    expect((await erin.post(`/file/${slug}/encoding`)).status).toBe(404)
    const uploader = await userWithProfile(app, 'fay', await makeProfile(app, ['file.create']))
    const own = await uploadMedia(uploader, await makeMedia('png', { size: '32x32' }), 'mine.png')
    await waitForStatus(uploader, own)
    expectError(await uploader.post(`/file/${own}/encoding`), 403, NEEDS('file.edit'))
    expect((await dave.post('/file/no-such-file/encoding')).status).toBe(404)
  })
})
