import { type AddressInfo } from 'node:net'
import { createServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { text } from '../../helpers/xml.js'
import { PDF, fileRow } from '../files/files.helpers.js'
import {
  digestBytes,
  expectFailure,
  ffprobe,
  fileInfo,
  makeMedia,
  pathOf,
  renditionRows,
  startEncodingApp,
  uploadMedia,
  waitForStatus,
} from './encoding.helpers.js'

describe('encoding by type: audio, images, documents, unreadable media', () => {
  let app: TestApp
  let bob: DigestClient

  beforeAll(async () => {
    app = await startEncodingApp()
    bob = await app.createUser({ username: 'bob' })
  })
  afterAll(async () => app?.close())

  /** Uploads, waits for the end of the encoding, and answers the file info and its rendition rows. */
  async function encoded(data: Buffer, name: string) {
    const slug = await uploadMedia(bob, data, name)
    const samples = await waitForStatus(bob, slug)
    const row = (await fileRow(app, slug))!
    return { slug, samples, info: await fileInfo(bob, slug), rows: await renditionRows(app, row.id), row }
  }

  it('audio: finished, type audio, the audio flavors (aac, mp3) served and readable, no thumbnail', async () => {
    const { slug, info, rows, row } = await encoded(await makeMedia('audio'), 'tone.m4a')
    expect([text(info.type), text(info.encoding_status), text(info.thumbnail)]).toEqual(['audio', 'finished', ''])
    expect(rows.map((r) => `${r.kind}:${r.name}`)).toEqual(['flavor:aac', 'flavor:mp3'])
    expect(row.mimeType).toBe('audio/mp4')
    const aac = await digestBytes(bob, `/file/${slug}/flavor/audio/aac.m4a`)
    expect([aac.status, aac.headers['content-type'], aac.headers['accept-ranges']]).toEqual([200, 'audio/mp4', 'bytes'])
    expect((await ffprobe(aac.body)).streams.map((s) => s.codec_name)).toEqual(['aac'])
    const mp3 = await digestBytes(bob, `/file/${slug}/flavor/audio/mp3.mp3`, { range: 'bytes=0-1' })
    expect([mp3.status, mp3.headers['content-type'], mp3.body.length]).toEqual([206, 'audio/mpeg', 2])
    expectFailure(await bob.get(`/file/${slug}/flavor/audio/aac.mp3`), 404)
    expectFailure(await bob.get(`/file/${slug}/flavor/video/aac.mp4`), 404)
    expectFailure(await bob.get(`/file/${slug}/hls/master.m3u8`), 404)
    expectFailure(await bob.get(`/file/${slug}/thumbnail/thumb.jpg`), 404)
    const snapshots = await bob.get(`/file/${slug}/snapshots`)
    expect([snapshots.status, snapshots.body]).toEqual([
      202,
      `<?xml version="1.0" encoding="UTF-8"?>\n<snapshots href="${app.url}/file/${slug}/snapshots"/>`,
    ])
  })

  it('PNG: finished, type image, the normalized JPEG and a thumbnail', async () => {
    const { info, rows } = await encoded(await makeMedia('png'), 'picture.png')
    expect([text(info.type), text(info.encoding_status)]).toEqual(['image', 'finished'])
    expect(rows.map((r) => `${r.kind}:${r.name}`)).toEqual(['image:image', 'thumbnail:thumbnail'])
    const thumbnail = await digestBytes(bob, pathOf(text(info.thumbnail)))
    expect([thumbnail.status, thumbnail.headers['content-type']]).toEqual([200, 'image/jpeg'])
  })

  it('PDF: finished at once as a document, without renditions', async () => {
    const { info, rows, samples } = await encoded(PDF, 'paper.pdf')
    expect([text(info.type), text(info.encoding_status), text(info.encoding_progress)]).toEqual([
      'document',
      'finished',
      '100',
    ])
    expect(text(info.thumbnail)).toBe('')
    expect(rows).toEqual([])
    expect(samples.some((s) => s.status === 'failed')).toBe(false)
  })

  it('plain text named .txt: a document, finished; named .mp4: failed, with the reason', async () => {
    const notes = Buffer.from('Some notes, in plain text.\nNothing to play here.\n')
    const document = await encoded(notes, 'notes.txt')
    expect([text(document.info.type), text(document.info.encoding_status)]).toEqual(['document', 'finished'])
    const fake = await encoded(notes, 'movie.mp4')
    expect(text(fake.info.encoding_status)).toBe('failed')
    expect(text(fake.info.encoding_error)).toBe(
      'not a media file the encoder can read: it is corrupt, truncated or in an unsupported format',
    )
    expect(fake.rows).toEqual([])
    // The status answer has no encoding_error; the listing neither.
    expect((await bob.get(`/file/${fake.slug}/status`)).body).not.toContain('encoding_error')
  })

  it('playlists uploaded as media (HLS, ffconcat) naming local files and a local server: failed, nothing fetched', async () => {
    const requests: string[] = []
    const server = createServer((req, res) => {
      requests.push(req.url ?? '')
      res.end('#EXTM3U\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const http = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const hls = `#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nfile:///etc/passwd\n#EXTINF:2,\n${http}/seg.ts\n#EXT-X-ENDLIST\n`
      const concat = `ffconcat version 1.0\nfile /etc/passwd\nfile ${http}/clip.mp4\n`
      for (const [data, name] of [
        [hls, 'stream.m3u8'],
        [concat, 'list.ffconcat'],
        [hls, 'disguised.mp4'],
      ] as const) {
        const { info, rows, row } = await encoded(Buffer.from(data), name)
        expect([name, text(info.encoding_status), text(info.encoding_error)]).toEqual([
          name,
          'failed',
          'not a media file the encoder can read: it is corrupt, truncated or in an unsupported format',
        ])
        expect(rows).toEqual([])
        expect(row.storedBytes).toBe(row.size)
      }
      expect(requests).toEqual([])
    } finally {
      server.close()
    }
  })

  it('a truncated MP4 (its index, last, cut off): failed with encoding_error, nothing stored beyond the original', async () => {
    const video = await makeMedia('video', { faststart: false })
    const { info, rows, row } = await encoded(video.subarray(0, Math.floor(video.length / 3)), 'cut.mp4')
    expect(text(info.encoding_status)).toBe('failed')
    expect(text(info.encoding_error)).toMatch(/^(not a media file the encoder can read|the encoder could not process)/)
    expect(rows).toEqual([])
    expect(row.storedBytes).toBe(row.size)
  })
})
