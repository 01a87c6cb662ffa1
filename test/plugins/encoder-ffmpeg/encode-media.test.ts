import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EncoderInputError } from '../../../plugins/encoder-ffmpeg/index.js'
import type { EncoderPort, ProbeResult, RenditionOutput } from '../../../src/kernel/index.js'
import { ffmpeg, ffprobe, makeExifJpeg, media, moovBeforeMdat, testEncoder, videoOf } from './media.helpers.js'

let dir: string
const file = (name: string): string => join(dir, name)
const encoder = testEncoder({ image: { max_size: 200 } })

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-encode-media-'))
  ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-ac', '2', file('sound.wav'))
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=320x180', '-frames:v', '1', file('photo.jpg'))
  ffmpeg(
    ...['-i', file('sound.wav'), '-i', file('photo.jpg'), '-map', '0', '-map', '1', '-c:a', 'libmp3lame'],
    ...['-c:v', 'copy', '-disposition:v', 'attached_pic', '-metadata', 'title=Private', file('cover.mp3')],
  )
  ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-c:a', 'aac', file('sound.m4a'))
  // Fully transparent: a JPEG made from it must come out white, not black.
  ffmpeg('-f', 'lavfi', '-i', 'color=c=black@0.0:s=64x48,format=rgba', '-frames:v', '1', file('clear.png'))
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=size=400x300', '-frames:v', '1', file('large.png'))
  makeExifJpeg(file('exif.jpg'), file('photo.jpg'), 6)
  writeFileSync(file('document.pdf'), '%PDF-1.4\n%%EOF\n')
  writeFileSync(file('notes.mp4'), 'only text\n')
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function encodeFile(
  name: string,
  probe?: ProbeResult,
  port: EncoderPort = encoder,
): Promise<{ outputs: RenditionOutput[]; outputDir: string; progress: number[] }> {
  const input = file(name)
  const outputDir = file(`out-${name}`)
  mkdirSync(outputDir, { recursive: true })
  const progress: number[] = []
  const outputs = await port.encode({
    input,
    outputDir,
    probe: probe ?? (await port.probe(input)),
    onProgress: (percent) => progress.push(percent),
    signal: new AbortController().signal,
  })
  return { outputs, outputDir, progress }
}

describe('encoder-ffmpeg audio, image and other encodings', () => {
  it('renders the audio flavors (AAC in .m4a, MP3), without the cover art or the tags', async () => {
    const { outputs, outputDir, progress } = await encodeFile('cover.mp3')
    expect(outputs).toEqual([
      expect.objectContaining({ kind: 'flavor', name: 'aac', path: 'aac.m4a', mimeType: 'audio/mp4' }),
      expect.objectContaining({ kind: 'flavor', name: 'mp3', path: 'mp3.mp3', mimeType: 'audio/mpeg' }),
    ])
    expect(readdirSync(outputDir).sort()).toEqual(['aac.m4a', 'mp3.mp3'])
    const aac = ffprobe(join(outputDir, 'aac.m4a'))
    expect(aac.streams.map((stream) => stream.codec_name)).toEqual(['aac'])
    expect(moovBeforeMdat(join(outputDir, 'aac.m4a'))).toBe(true)
    const mp3 = ffprobe(join(outputDir, 'mp3.mp3'), '-show_entries', 'format_tags')
    expect(mp3.streams.map((stream) => stream.codec_name)).toEqual(['mp3'])
    expect(JSON.stringify(mp3)).not.toContain('Private')
    for (const output of outputs) expect(output.duration).toBeCloseTo(2, 0)
    expect(progress[0]).toBe(0)
    expect(progress.at(-1)).toBe(100)
  })

  it('takes the flavor list from the configuration', async () => {
    const custom = testEncoder({ audio: { flavors: [{ name: 'low', codec: 'mp3', bitrate: 64 }] } })
    const { outputs, outputDir } = await encodeFile('sound.m4a', undefined, custom)
    expect(outputs.map((output) => output.path)).toEqual(['low.mp3'])
    expect(readdirSync(outputDir)).toEqual(['low.mp3'])
  })

  it('normalizes an image to a bounded JPEG with a thumbnail', async () => {
    const { outputs, outputDir, progress } = await encodeFile('large.png')
    expect(outputs).toEqual([
      { kind: 'image', name: 'image', path: 'image.jpg', mimeType: 'image/jpeg', width: 200, height: 150 },
      { kind: 'thumbnail', name: 'thumbnail', path: 'thumbnail.jpg', mimeType: 'image/jpeg', width: 160, height: 120 },
    ])
    expect(videoOf(ffprobe(join(outputDir, 'image.jpg')))).toMatchObject({
      codec_name: 'mjpeg',
      width: 200,
      height: 150,
    })
    expect(videoOf(ffprobe(join(outputDir, 'thumbnail.jpg')))).toMatchObject({ width: 160, height: 120 })
    expect(progress).toEqual([0, 99.9, 100])
  })

  it('turns a photo upright by its EXIF orientation (6: a quarter turn clockwise)', async () => {
    const { outputs, outputDir } = await encodeFile('exif.jpg')
    expect(outputs[0]).toMatchObject({ width: 113, height: 200 })
    const pixels = (path: string, filters: string): Buffer =>
      media('ffmpeg', ['-v', 'error', '-i', path, '-vf', filters, '-f', 'rawvideo', '-pix_fmt', 'gray', '-'])
    const output = pixels(join(outputDir, 'image.jpg'), 'scale=113:200')
    const difference = (reference: Buffer): number =>
      reference.reduce((sum, value, i) => sum + Math.abs(value - output[i]!), 0) / reference.length
    const clockwise = difference(pixels(file('photo.jpg'), 'transpose=1,scale=113:200'))
    const counterclockwise = difference(pixels(file('photo.jpg'), 'transpose=2,scale=113:200'))
    expect(clockwise).toBeLessThan(5)
    expect(counterclockwise).toBeGreaterThan(20)
  })

  it('puts transparent pixels on white, never enlarges a small picture', async () => {
    const { outputs, outputDir } = await encodeFile('clear.png')
    expect(outputs.map((output) => [output.width, output.height])).toEqual([
      [64, 48],
      [64, 48],
    ])
    const pixels = media('ffmpeg', [
      '-v',
      'error',
      '-i',
      join(outputDir, 'image.jpg'),
      '-f',
      'rawvideo',
      '-pix_fmt',
      'gray',
      '-',
    ])
    expect(Math.min(...pixels)).toBeGreaterThan(240)
  })

  it('renders nothing for documents and other files, and reports 100', async () => {
    for (const name of ['document.pdf', 'notes.mp4']) {
      const { outputs, outputDir, progress } = await encodeFile(name)
      expect(outputs, name).toEqual([])
      expect(progress, name).toEqual([100])
      expect(readdirSync(outputDir), name).toEqual([])
    }
  })

  it('refuses a playlist or concat format even when told it is a video', async () => {
    const probe: ProbeResult = {
      type: 'video',
      format: 'hls',
      duration: 1,
      width: 64,
      height: 48,
      streams: [{ index: 0, kind: 'video', codec: 'h264' }],
    }
    await expect(encodeFile('notes.mp4', probe)).rejects.toBeInstanceOf(EncoderInputError)
    await expect(encodeFile('notes.mp4', { ...probe, format: 'concat' })).rejects.toThrow(/refused input format/)
  })
})
