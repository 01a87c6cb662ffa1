import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { fileRow, storedKeys } from '../files/files.helpers.js'
import {
  type BytesResponse,
  type StatusSample,
  digestBytes,
  expectFailure,
  ffprobe,
  fileInfo,
  makeMedia,
  pathOf,
  renditionRows,
  sha1,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from './encoding.helpers.js'

/** Checks the headers every media answer carries. */
function expectMedia(res: BytesResponse, status: number, type: string, cache: string): void {
  expect(res.status, res.body.toString('utf8').slice(0, 300)).toBe(status)
  expect(res.headers['content-type']).toBe(type)
  expect(res.headers['cache-control']).toBe(cache)
  expect(res.headers['x-api-version']).toBe('2.14.3')
}

describe('encoding a video', () => {
  let app: TestApp
  let alice: DigestClient
  let slug: string
  let samples: StatusSample[]
  let source: Buffer

  beforeAll(async () => {
    app = await startEncodingApp()
    alice = await app.createUser({ username: 'alice' })
    source = await makeMedia('video', { seconds: 3 })
    slug = await uploadMedia(alice, source, 'clip.mp4')
    samples = await waitForStatus(alice, slug)
  })
  afterAll(async () => app?.close())

  it('goes waiting → running (progress between 0 and 100, never going back) → finished at 100', () => {
    const statuses = [...new Set(samples.map((s) => s.status))]
    expect(statuses.at(-1), JSON.stringify(samples)).toBe('finished')
    expect(statuses.every((s) => ['waiting', 'running', 'success', 'finished'].includes(s))).toBe(true)
    expect(samples.at(-1)!.progress).toBe(100)
    const progress = samples.map((s) => s.progress)
    for (let i = 1; i < progress.length; i++) {
      if (samples[i]!.status === samples[i - 1]!.status) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!)
    }
    const between = samples.filter((s) => s.status === 'running' && s.progress > 0 && s.progress < 100)
    expect(between.length, JSON.stringify(samples)).toBeGreaterThan(0)
  })

  it('file info: type video, no encoding_error, a thumbnail URL that serves a JPEG', async () => {
    const file = await fileInfo(alice, slug)
    expect(text(file.type)).toBe('video')
    expect(text(file.encoding_status)).toBe('finished')
    expect(file.encoding_error).toBeUndefined()
    const thumbnail = text(file.thumbnail)
    expect(thumbnail).toMatch(new RegExp(`^${app.url}/file/${slug}/thumbnail/thumb\\.jpg\\?v=\\d+$`))
    const res = await digestBytes(alice, pathOf(thumbnail))
    expectMedia(res, 200, 'image/jpeg', 'private, max-age=86400')
    expect(res.body.subarray(0, 3).toString('hex')).toBe('ffd8ff')
    // The listing shows the same URL.
    const listing = parseXml((await alice.get('/files')).body).files
    expect(list<XmlObject>(listing.file).map((f) => text(f.thumbnail))).toEqual([thumbnail])
  })

  it('records one set of renditions: two flavors, HLS, the thumbnail and 10 snapshots, counted in stored bytes', async () => {
    const row = (await fileRow(app, slug))!
    const rows = await renditionRows(app, row.id)
    expect(rows.map((r) => `${r.kind}:${r.name}`)).toEqual([
      'flavor:120p',
      'flavor:240p',
      'hls:hls',
      ...Array.from({ length: 10 }, (_, i) => `snapshot:${i}`),
      'thumbnail:thumbnail',
    ])
    expect(row.storedBytes).toBe(row.size + rows.reduce((sum, r) => sum + r.size, 0))
    // Every stored object of the file is the original or part of the recorded set.
    const keys = (await storedKeys(app)).filter((key) => key.startsWith(row.storagePrefix))
    expect(keys).toContain(row.storageKey)
    for (const key of keys.filter((k) => k !== row.storageKey)) {
      expect(
        rows.some((r) => (r.storage_key.endsWith('/') ? key.startsWith(r.storage_key) : key === r.storage_key)),
        key,
      ).toBe(true)
    }
    const hlsBytes = rows.find((r) => r.kind === 'hls')!
    const hlsKeys = keys.filter((k) => k.startsWith(hlsBytes.storage_key))
    expect(hlsKeys).toContain(`${hlsBytes.storage_key}master.m3u8`)
  })

  it('serves the flavors whole and by byte range (206), checked with ffprobe', async () => {
    const whole = await digestBytes(alice, `/file/${slug}/flavor/video/240p.mp4`)
    expectMedia(whole, 200, 'video/mp4', 'private, max-age=3600')
    expect(whole.headers['accept-ranges']).toBe('bytes')
    expect(Number(whole.headers['content-length'])).toBe(whole.body.length)
    const probe = await ffprobe(whole.body)
    const video = probe.streams.find((s) => s.codec_type === 'video')!
    expect([video.codec_name, video.width, video.height]).toEqual(['h264', 320, 240])
    expect(probe.streams.some((s) => s.codec_type === 'audio' && s.codec_name === 'aac')).toBe(true)
    expect(Number(probe.format.duration)).toBeCloseTo(3, 0)
    const small = await ffprobe((await digestBytes(alice, `/file/${slug}/flavor/video/120p.mp4`)).body)
    expect(small.streams.find((s) => s.codec_type === 'video')!.width).toBe(160)

    const size = whole.body.length
    const part = await digestBytes(alice, `/file/${slug}/flavor/video/240p.mp4`, { range: 'bytes=100-1099' })
    expectMedia(part, 206, 'video/mp4', 'private, max-age=3600')
    expect(part.headers['content-range']).toBe(`bytes 100-1099/${size}`)
    expect(part.headers['content-length']).toBe('1000')
    expect(part.body.equals(whole.body.subarray(100, 1100))).toBe(true)
    const tail = await digestBytes(alice, `/file/${slug}/flavor/video/240p.mp4`, { range: 'bytes=-10' })
    expect([tail.status, tail.headers['content-range']]).toEqual([206, `bytes ${size - 10}-${size - 1}/${size}`])
    expect(tail.body.equals(whole.body.subarray(size - 10))).toBe(true)
    const open = await digestBytes(alice, `/file/${slug}/flavor/video/240p.mp4`, { range: `bytes=${size - 5}-` })
    expect([open.status, open.body.length]).toEqual([206, 5])
    const past = await digestBytes(alice, `/file/${slug}/flavor/video/240p.mp4`, { range: `bytes=${size}-` })
    expect(past.status).toBe(416)
    expect(past.headers['content-range']).toBe(`bytes */${size}`)
    // A stale If-Range: the whole file.
    const stale = await digestBytes(alice, `/file/${slug}/flavor/video/240p.mp4`, {
      range: 'bytes=0-9',
      'if-range': '"other"',
    })
    expect([stale.status, stale.body.length]).toEqual([200, size])
    const fresh = await digestBytes(alice, `/file/${slug}/flavor/video/240p.mp4`, {
      range: 'bytes=0-9',
      'if-range': String(whole.headers.etag),
    })
    expect([fresh.status, fresh.body.length]).toEqual([206, 10])
    const cached = await digestBytes(alice, `/file/${slug}/flavor/video/240p.mp4`, {
      'if-none-match': String(whole.headers.etag),
    })
    expect([cached.status, cached.body.length]).toEqual([304, 0])
    expectFailure(await alice.get(`/file/${slug}/flavor/video/1080p.mp4`), 404)
    expectFailure(await alice.get(`/file/${slug}/flavor/audio/aac.m4a`), 404)
  })

  it('serves HLS: the master playlist, a variant playlist and its segments', async () => {
    const master = await digestBytes(alice, `/file/${slug}/hls/master.m3u8`)
    expectMedia(master, 200, 'application/vnd.apple.mpegurl', 'private, max-age=60')
    const text = master.body.toString('utf8')
    expect(text.startsWith('#EXTM3U')).toBe(true)
    const variants = text.split('\n').filter((line) => line && !line.startsWith('#'))
    expect(variants).toEqual(['240p/index.m3u8', '120p/index.m3u8'])
    const playlist = await digestBytes(alice, `/file/${slug}/hls/${variants[0]}`)
    expectMedia(playlist, 200, 'application/vnd.apple.mpegurl', 'private, max-age=60')
    const segments = playlist.body
      .toString('utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
    expect(segments.length).toBeGreaterThanOrEqual(2)
    const segment = await digestBytes(alice, `/file/${slug}/hls/240p/${segments[0]}`)
    expectMedia(segment, 200, 'video/mp2t', 'private, max-age=3600')
    expect(segment.body[0]).toBe(0x47)
    const ranged = await digestBytes(alice, `/file/${slug}/hls/240p/${segments[0]}`, { range: 'bytes=0-187' })
    expect([ranged.status, ranged.body.length]).toEqual([206, 188])
    expectFailure(await alice.get(`/file/${slug}/hls/240p/..`), 404)
    expectFailure(await alice.get(`/file/${slug}/hls/nothing.m3u8`), 404)
  })

  it('snapshots: 202 with ids 0 to 9, ten different pictures, the first selected and shown as the thumbnail', async () => {
    const res = await alice.get(`/file/${slug}/snapshots`)
    expect(res.status, res.body).toBe(202)
    const doc = parseXml(res.body).snapshots as XmlObject
    expect(doc['@href']).toBe(`${app.url}/file/${slug}/snapshots`)
    const snapshots = list<XmlObject>(doc.snapshot)
    expect(snapshots.map((s) => s['@id'])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
    expect(snapshots.map((s) => s['@selected'])).toEqual(['true', ...Array(9).fill(undefined)])
    const hashes = new Set<string>()
    for (const snapshot of snapshots) {
      expect(snapshot['@src']).toMatch(
        new RegExp(`^${app.url}/file/${slug}/snapshots/${snapshot['@id']}\\.jpg\\?v=\\d+$`),
      )
      const image = await digestBytes(alice, pathOf(snapshot['@src'] as string))
      expectMedia(image, 200, 'image/jpeg', 'private, max-age=86400')
      hashes.add(sha1(image.body))
    }
    expect(hashes.size).toBe(10)
    const thumbnail = await digestBytes(alice, `/file/${slug}/thumbnail/thumb.jpg`)
    const first = await digestBytes(alice, `/file/${slug}/snapshots/0.jpg`)
    expect(sha1(thumbnail.body)).toBe(sha1(first.body))
  })

  it('POST id selects a snapshot (200): it becomes the thumbnail, under a new URL; an unknown id is 412', async () => {
    const before = text((await fileInfo(alice, slug)).thumbnail)
    const res = await alice.post(`/file/${slug}/snapshots`, { form: { id: '3' } })
    expect(res.status, res.body).toBe(200)
    const snapshots = list<XmlObject>((parseXml(res.body).snapshots as XmlObject).snapshot)
    expect(snapshots.filter((s) => s['@selected'] === 'true').map((s) => s['@id'])).toEqual(['3'])
    const after = text((await fileInfo(alice, slug)).thumbnail)
    expect(after).not.toBe(before)
    const thumbnail = await digestBytes(alice, pathOf(after))
    const third = await digestBytes(alice, `/file/${slug}/snapshots/3.jpg`)
    expect(sha1(thumbnail.body)).toBe(sha1(third.body))
    expectFailure(await alice.post(`/file/${slug}/snapshots`, { form: { id: '42' } }), 412, {
      id: 'no snapshot "42": this file has 0, 1, 2, 3, 4, 5, 6, 7, 8, 9',
    })
    expectFailure(await alice.post(`/file/${slug}/snapshots`, { form: {} }), 412)
    expectFailure(await alice.get(`/file/${slug}/snapshots/42.jpg`), 404)
  })
})
