import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EncoderInputError } from '../../../plugins/encoder-ffmpeg/index.js'
import { runningProcesses } from '../../../plugins/encoder-ffmpeg/ffmpeg-process.js'
import { ffmpeg, ffprobe, makeExifJpeg, makeVideo, testEncoder } from './media.helpers.js'

const encoder = testEncoder({ probe_time_limit: 10 })
let dir: string
let server: Server
let port: number
const requests: string[] = []
const file = (name: string): string => join(dir, name)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-probe-'))
  server = createServer((request, response) => {
    requests.push(request.url ?? '')
    response.end('#EXTM3U\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port

  makeVideo(file('video.mp4'), { width: 320, height: 180, seconds: 2 })
  makeVideo(file('portrait.mp4'), { width: 180, height: 320, seconds: 1 })
  ffmpeg('-i', file('video.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', file('rotated.mp4'))
  makeVideo(file('silent.mkv'), { width: 64, height: 36, seconds: 1, silent: true })
  ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-c:a', 'aac', file('sound.m4a'))
  ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', file('sound.wav'))
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1', file('picture.png'))
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=320x180', '-frames:v', '1', file('photo.jpg'))
  makeExifJpeg(file('exif'), file('photo.jpg'), 6)
  ffmpeg(
    ...['-i', file('sound.wav'), '-i', file('photo.jpg'), '-map', '0', '-map', '1', '-c:a', 'libmp3lame'],
    ...['-c:v', 'copy', '-disposition:v', 'attached_pic', file('cover.mp3')],
  )
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x36:rate=5', file('animation.gif'))
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=64x36', '-frames:v', '1', file('still.gif'))

  const whole = readFileSync(file('video.mp4'))
  writeFileSync(file('truncated.mp4'), whole.subarray(0, whole.length >> 1))
  writeFileSync(file('text.mp4'), 'Hello, this is only text.\nNothing to see.\n')
  writeFileSync(file('empty'), '')
  writeFileSync(file('document'), '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< >>\n%%EOF\n')
  const playlist = [
    '#EXTM3U',
    '#EXT-X-TARGETDURATION:2',
    '#EXTINF:2,',
    `http://127.0.0.1:${port}/segment.ts`,
    '#EXTINF:2,',
    'file:///etc/passwd',
    '#EXTINF:2,',
    file('video.mp4'),
    '#EXT-X-ENDLIST',
    '',
  ].join('\n')
  writeFileSync(file('playlist.m3u8'), playlist)
  writeFileSync(file('playlist'), playlist)
  const concat = [
    'ffconcat version 1.0',
    `file 'http://127.0.0.1:${port}/video.mp4'`,
    "file 'file:///etc/passwd'",
    `file '${file('video.mp4')}'`,
    '',
  ].join('\n')
  writeFileSync(file('list.ffconcat'), concat)
  writeFileSync(file('list'), concat)
  // Lists of local media only, which ffprobe itself reads: refused by their format.
  writeFileSync(file('local.ffconcat'), "ffconcat version 1.0\nfile 'video.mp4'\n")
  ffmpeg('-i', file('video.mp4'), '-c', 'copy', '-f', 'mpegts', file('segment.ts'))
  // As a browser's MediaRecorder writes WebM: live, so no duration and no index in the header.
  ffmpeg(
    ...['-f', 'lavfi', '-i', 'testsrc=size=64x36:rate=10:duration=2', '-f', 'lavfi', '-i', 'sine=duration=2'],
    ...['-c:v', 'libvpx', '-b:v', '200k', '-c:a', 'libopus', '-live', '1', '-f', 'webm', file('recording.webm')],
  )
  writeFileSync(file('local.m3u8'), '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nsegment.ts\n#EXT-X-ENDLIST\n')
  writeFileSync(
    file('session.sdp'),
    `v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=video ${port} RTP/AVP 96\na=rtpmap:96 H264/90000\n`,
  )
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

describe('encoder-ffmpeg probe', () => {
  it('reads a video: type, format, duration, display size, streams', async () => {
    const probe = await encoder.probe(file('video.mp4'))
    expect(probe).toMatchObject({ type: 'video', width: 320, height: 180, rotation: 0 })
    expect(probe.format).toContain('mp4')
    expect(probe.duration).toBeCloseTo(2, 1)
    expect(probe.streams.map((stream) => [stream.kind, stream.codec])).toEqual([
      ['video', 'h264'],
      ['audio', 'aac'],
    ])
    expect(probe.streams[1]).toMatchObject({ sampleRate: 44100, channels: 1 })
  })

  it('gives the display size of a portrait video and of a rotated one', async () => {
    expect(await encoder.probe(file('portrait.mp4'))).toMatchObject({ type: 'video', width: 180, height: 320 })
    const rotated = await encoder.probe(file('rotated.mp4'))
    expect(rotated).toMatchObject({ type: 'video', width: 180, height: 320 })
    expect([90, 270]).toContain(rotated.rotation)
    expect(rotated.streams[0]).toMatchObject({ width: 320, height: 180 })
  })

  it('reads a video without sound in another container', async () => {
    const probe = await encoder.probe(file('silent.mkv'))
    expect(probe).toMatchObject({ type: 'video', format: 'matroska,webm', width: 64, height: 36 })
    expect(probe.streams).toHaveLength(1)
  })

  it('reads a live WebM (MediaRecorder: no duration in its header) as video, its length from its packets', async () => {
    const header = ffprobe(file('recording.webm'))
    expect(header.format.duration ?? null).toBeNull()
    const probe = await encoder.probe(file('recording.webm'))
    expect(probe).toMatchObject({ type: 'video', width: 64, height: 36 })
    expect(probe.duration).toBeGreaterThan(1.5)
  })

  it('reads MPEG-TS (the bundled static ffprobe crashed on its service names)', async () => {
    const probe = await encoder.probe(file('segment.ts'))
    expect(probe).toMatchObject({ type: 'video', format: 'mpegts', width: 320, height: 180 })
    expect(probe.duration).toBeCloseTo(2, 0)
  })

  it('reads sound files as audio, cover art included', async () => {
    for (const name of ['sound.m4a', 'sound.wav', 'cover.mp3']) {
      const probe = await encoder.probe(file(name))
      expect(probe, name).toMatchObject({ type: 'audio', width: null, height: null })
      expect(probe.duration, name).toBeCloseTo(2, 0)
    }
    const cover = await encoder.probe(file('cover.mp3'))
    expect(cover.streams.find((stream) => stream.kind === 'video')).toMatchObject({ attachedPicture: true })
  })

  it('reads single pictures as images, an animation as video', async () => {
    expect(await encoder.probe(file('picture.png'))).toMatchObject({
      type: 'image',
      duration: null,
      width: 64,
      height: 48,
    })
    expect(await encoder.probe(file('photo.jpg'))).toMatchObject({ type: 'image', width: 320, height: 180 })
    expect(await encoder.probe(file('still.gif'))).toMatchObject({ type: 'image', width: 64, height: 36 })
    expect(await encoder.probe(file('animation.gif'))).toMatchObject({ type: 'video', width: 64, height: 36 })
  })

  it("applies a photo's EXIF orientation to its size", async () => {
    expect(await encoder.probe(file('exif'))).toMatchObject({
      type: 'image',
      width: 180,
      height: 320,
      rotation: 90,
      mirrored: false,
    })
  })

  it('answers document for a PDF and other for what is not media, never an error', async () => {
    expect(await encoder.probe(file('document'))).toMatchObject({ type: 'document', format: null, streams: [] })
    for (const name of ['truncated.mp4', 'text.mp4', 'empty', 'missing']) {
      expect(await encoder.probe(file(name)), name).toEqual({
        type: 'other',
        format: null,
        duration: null,
        width: null,
        height: null,
        streams: [],
      })
    }
  })

  it('refuses playlists, concat lists and session descriptions, fetching nothing they name', async () => {
    const names = ['playlist.m3u8', 'playlist', 'list.ffconcat', 'list', 'session.sdp', 'local.ffconcat', 'local.m3u8']
    for (const name of names) {
      expect((await encoder.probe(file(name))).type, name).toBe('other')
    }
    expect(requests).toEqual([])
  })

  it('never lets ffmpeg open them as playlists, even with a forged probe', async () => {
    const forged = { type: 'video' as const, duration: 2, width: 320, height: 180 }
    const streams = [{ index: 0, kind: 'video' as const, codec: 'h264' }]
    const signal = new AbortController().signal
    for (const [name, format] of [
      ['playlist', 'hls'],
      ['list', 'concat'],
      ['playlist', 'mov,mp4,m4a,3gp,3g2,mj2'],
      ['list', 'mov,mp4,m4a,3gp,3g2,mj2'],
    ] as const) {
      const outputDir = file(`out-${name}-${format.length}`)
      const encoding = encoder.encode({
        input: file(name),
        outputDir,
        probe: { ...forged, format, streams },
        onProgress: () => {},
        signal,
      })
      await expect(encoding, `${name} as ${format}`).rejects.toThrow()
      if (format !== 'hls' && format !== 'concat') continue
      await expect(
        encoder.encode({
          input: file(name),
          outputDir,
          probe: { ...forged, format, streams },
          onProgress: () => {},
          signal,
        }),
      ).rejects.toBeInstanceOf(EncoderInputError)
    }
    expect(requests).toEqual([])
    expect(runningProcesses()).toBe(0)
  })

  it('rejects when aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(encoder.probe(file('video.mp4'), controller.signal)).rejects.toMatchObject({ name: 'AbortError' })
  })
})
