import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { StoredFileEntity } from '../../../plugins/files/index.js'
import { UserEntity } from '../../../plugins/identity/index.js'
import { findMediaBinary } from '../../../src/shared/binaries.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, parseXml, text } from '../../helpers/xml.js'
import { fileRow, storedBytes, storedKeys, usedSpace } from '../files/files.helpers.js'
import { makeProfile, userWithProfile } from '../identity/permissions.fixtures.js'
import {
  expectFailure,
  ffprobe,
  fileInfo,
  makeMedia,
  renditionRows,
  sha1,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from './encoding.helpers.js'

const run = promisify(execFile)
const WIDTH = 320
const HEIGHT = 180

/** The first frame of a video as raw RGB (3 bytes a pixel, WIDTH x HEIGHT). */
async function firstFrame(video: Buffer): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-frame-'))
  try {
    const input = join(dir, 'input.mp4')
    writeFileSync(input, video)
    const { stdout } = await run(
      findMediaBinary('ffmpeg')!.path,
      ['-v', 'error', '-i', input, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
    )
    return stdout
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Mean absolute difference of two RGB frames over the pixels `where` selects. */
function meanDifference(a: Buffer, b: Buffer, where: (x: number, y: number) => boolean): number {
  let total = 0
  let count = 0
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      if (!where(x, y)) continue
      const i = (y * WIDTH + x) * 3
      total += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!)
      count += 3
    }
  }
  return total / count
}

const post = (client: DigestClient, slug: string, form: Record<string, string>) =>
  client.post(`/file/${slug}/studio/insertlogo`, { form })

describe('POST /file/<slug>/studio/insertlogo', () => {
  let app: TestApp
  let carol: DigestClient
  let dave: DigestClient
  let video: string
  let logo: string
  let davesLogo: string
  const placement = { logo_left: '10', logo_top: '20', logo_width: '25', logo_height: '40' }

  beforeAll(async () => {
    app = await startEncodingApp()
    carol = await app.createUser({ username: 'carol' })
    dave = await app.createUser({ username: 'dave' })
    const media = await makeMedia('video', { size: `${WIDTH}x${HEIGHT}` })
    const png = await makeMedia('png', { size: '64x64' })
    video = await uploadMedia(carol, media, 'clip.mp4')
    logo = await uploadMedia(carol, png, 'logo.png')
    davesLogo = await uploadMedia(dave, png, 'dave-logo.png')
    for (const [client, slug] of [
      [carol, video],
      [carol, logo],
      [dave, davesLogo],
    ] as const) {
      expect((await waitForStatus(client, slug)).at(-1)!.status).toBe('finished')
    }
  }, 120_000)
  afterAll(async () => app?.close())

  it('answers 202 with the new file, pending, which is encoded; the original is unchanged; the logo is in its box', async () => {
    const original = (await fileRow(app, video))!
    const before = await storedBytes(app, original.storageKey)

    const res = await post(carol, video, { ...placement, logo, name: 'Clip with logo' })
    expect(res.status, res.body).toBe(202)
    const file = parseXml(res.body).file as XmlObject
    const slug = text(file.slug)
    expect(slug).not.toBe(video)
    expect(file['@href']).toMatch(new RegExp(`/file/${slug}$`))
    expect(text(file.name)).toBe('Clip with logo')
    expect(text(file.type)).toBe('video')
    expect(text(file.encoding_status)).toBe('pending')
    const directory = file.directory as XmlObject
    expect(directory['@rel']).toBe('parent')
    expect(directory['@href']).toMatch(/\/files$/)

    const samples = await waitForStatus(carol, slug, ['finished', 'failed'], 120_000)
    const info = await fileInfo(carol, slug)
    expect(text(info.encoding_status), text(info.encoding_error)).toBe('finished')
    expect(samples.at(-1)!.progress).toBe(100)
    const row = (await fileRow(app, slug))!
    expect(row.storagePrefix).not.toBe(original.storagePrefix)
    expect(row.directoryId).toBe(original.directoryId)
    expect(row.size).toBeGreaterThan(0)
    const flavors = (await renditionRows(app, row.id)).filter((r) => r.kind === 'flavor')
    expect(flavors.length).toBeGreaterThan(0)

    // The original: same bytes, same state.
    const after = await storedBytes(app, original.storageKey)
    expect(sha1(after)).toBe(sha1(before))
    const originalInfo = await fileInfo(carol, video)
    expect(text(originalInfo.encoding_status)).toBe('finished')
    expect(Number(text(originalInfo.size))).toBe(before.length)

    // The new source: same size and duration, the logo inside its box only.
    const result = await storedBytes(app, row.storageKey)
    const probe = await ffprobe(result)
    const stream = probe.streams.find((s) => s.codec_type === 'video')!
    expect([Number(stream.width), Number(stream.height)]).toEqual([WIDTH, HEIGHT])
    expect(Number(probe.format.duration)).toBeCloseTo(2, 0)
    const [a, b] = await Promise.all([firstFrame(before), firstFrame(result)])
    expect(a.length).toBe(WIDTH * HEIGHT * 3)
    expect(b.length).toBe(WIDTH * HEIGHT * 3)
    // 10%, 20%, 25%, 40% of 320x180: x 32 to 112, y 36 to 108; a margin of 4 pixels either side.
    const box = { x0: 32, x1: 112, y0: 36, y1: 108 }
    const inside = (x: number, y: number) => x >= box.x0 + 4 && x < box.x1 - 4 && y >= box.y0 + 4 && y < box.y1 - 4
    const outside = (x: number, y: number) => x < box.x0 - 4 || x >= box.x1 + 4 || y < box.y0 - 4 || y >= box.y1 + 4
    expect(meanDifference(a, b, inside)).toBeGreaterThan(20)
    expect(meanDifference(a, b, outside)).toBeLessThan(6)
  }, 180_000)

  it('412 for a logo that is not an image, or of another user', async () => {
    expectFailure(await post(carol, video, { ...placement, logo: video, name: 'x' }), 412, {
      logo: `"${video}" is not an image file`,
    })
    expectFailure(await post(carol, video, { ...placement, logo: davesLogo, name: 'x' }), 412, {
      logo: `you have no file "${davesLogo}"`,
    })
    expectFailure(await post(carol, video, { ...placement, name: 'x' }), 412, { logo: 'is required' })
  })

  it('412 for percentages out of range, not numbers, or overflowing the frame; and a missing name', async () => {
    expectFailure(
      await post(carol, video, { logo, logo_width: '150', logo_height: 'abc', logo_top: '-1', logo_left: '10%' }),
      412,
      {
        logo_width: /above 0, up to 100/,
        logo_height: /above 0, up to 100/,
        logo_top: /from 0 to 100/,
        logo_left: /from 0 to 100/,
        name: 'is required',
      },
    )
    expectFailure(
      await post(carol, video, {
        logo,
        logo_width: '30.5',
        logo_height: '0',
        logo_top: '0',
        logo_left: '70',
        name: 'x',
      }),
      412,
      { logo_height: /above 0/, logo_width: /logo_left \+ logo_width/, logo_left: /logo_left \+ logo_width/ },
    )
    expectFailure(
      await post(carol, video, { logo, logo_width: '50', logo_height: '60.25', logo_top: '40', logo_left: '50' }),
      412,
      { logo_height: /logo_top \+ logo_height/, logo_top: /logo_top \+ logo_height/, name: 'is required' },
    )
    expectFailure(await post(carol, video, { ...placement, logo, name: 'two\nlines' }), 412, { name: /one line/ })
  })

  it('412 when the source is not a video that finished encoding', async () => {
    expectFailure(await post(carol, logo, { ...placement, logo, name: 'x' }), 412, {
      file: 'must be a video that finished encoding',
    })
  })

  it("404 for another user's file; 403 without file.create", async () => {
    expectFailure(await post(dave, video, { ...placement, logo: davesLogo, name: 'x' }), 404)

    const profile = await makeProfile(app, ['file.edit', 'file.delete'])
    const erin = await userWithProfile(app, 'erin', profile)
    const em = app.kernel.em()
    const user = await em.findOneOrFail(UserEntity, { username: 'erin' }, { populate: ['platform'] })
    const original = (await fileRow(app, video))!
    em.create(StoredFileEntity, {
      slug: 'erins-video',
      name: 'erins-video',
      size: original.size,
      storedBytes: 0,
      type: 'video',
      mimeType: 'video/mp4',
      encodingStatus: 5,
      encodingProgress: 100,
      encodingError: null,
      storageKey: 'files/erin/source',
      storagePrefix: 'files/erin/',
      metadata: {},
      user,
      platform: user.platform,
      directory: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    })
    await em.flush()
    expectFailure(await post(erin, 'erins-video', { ...placement, logo, name: 'x' }), 403)
  })
  // Last: it fills the platform.
  it('a result that does not fit the space left: the new file fails with the reason, nothing is kept', async () => {
    const used = await usedSpace(app)
    await app.kernel.em().execute("update platforms set max_space = ? where slug = 'default'", [used + 1000])
    const res = await post(carol, video, { ...placement, logo, name: 'Too big' })
    expect(res.status, res.body).toBe(202)
    const slug = text((parseXml(res.body).file as XmlObject).slug)
    await waitForStatus(carol, slug, ['failed', 'finished'], 120_000)
    const info = await fileInfo(carol, slug)
    expect(text(info.encoding_status)).toBe('failed')
    expect(text(info.encoding_error)).toMatch(
      /^not enough space for the file with the logo: exceeds the platform's space of \d+ bytes \(1000 bytes left\)$/,
    )
    const row = (await fileRow(app, slug))!
    expect(row.size).toBe(0)
    expect((await storedKeys(app)).filter((key) => key.startsWith(row.storagePrefix))).toEqual([])
    expect(await usedSpace(app)).toBe(used)
  }, 120_000)
})
