import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EncoderPort, RenditionOutput } from '../../../src/kernel/index.js'
import { ffmpeg, ffprobe, makeVideo, media, moovBeforeMdat, testEncoder, videoOf } from './media.helpers.js'

let dir: string
const file = (name: string): string => join(dir, name)

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-encode-video-'))
  makeVideo(file('landscape.mp4'), { width: 320, height: 180, seconds: 3 })
  makeVideo(file('portrait.mp4'), { width: 360, height: 640, seconds: 2 })
  makeVideo(file('medium.mp4'), { width: 640, height: 360, seconds: 2 })
  makeVideo(file('silent.mp4'), { width: 320, height: 180, seconds: 2, silent: true })
  ffmpeg('-i', file('landscape.mp4'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90', file('rotated.mp4'))
  // Odd and smaller than the smallest rung (256x144): kept at its size, made even.
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=duration=1:size=101x61:rate=10', '-c:v', 'ffv1', file('tiny.mkv'))
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function encodeFile(
  encoder: EncoderPort,
  name: string,
): Promise<{ outputs: RenditionOutput[]; outputDir: string; progress: number[] }> {
  const input = file(name)
  const outputDir = file(`out-${name}`)
  const progress: number[] = []
  const outputs = await encoder.encode({
    input,
    outputDir,
    probe: await encoder.probe(input),
    onProgress: (percent) => progress.push(percent),
    signal: new AbortController().signal,
  })
  return { outputs, outputDir, progress }
}

function flavorSizes(outputs: RenditionOutput[]): [string, number, number][] {
  return outputs
    .filter((output) => output.kind === 'flavor')
    .map((output) => [output.name, output.width!, output.height!])
}

describe('encoder-ffmpeg video encoding', () => {
  const encoder = testEncoder()

  it('renders the ladder the source fills, an HLS rendition and a thumbnail', async () => {
    const { outputs, outputDir, progress } = await encodeFile(encoder, 'landscape.mp4')
    expect(outputs.map((output) => [output.kind, output.name, output.path, output.mimeType])).toEqual([
      ['flavor', '180p', '180p.mp4', 'video/mp4'],
      ['flavor', '144p', '144p.mp4', 'video/mp4'],
      ['hls', 'hls', 'hls', 'application/vnd.apple.mpegurl'],
      ['thumbnail', 'thumbnail', 'thumbnail.jpg', 'image/jpeg'],
    ])
    expect(flavorSizes(outputs)).toEqual([
      ['180p', 320, 180],
      ['144p', 256, 144],
    ])
    // Only the outputs: no work folder left behind.
    expect(readdirSync(outputDir).sort()).toEqual(['144p.mp4', '180p.mp4', 'hls', 'thumbnail.jpg'])

    for (const [name, width, height] of flavorSizes(outputs)) {
      const json = ffprobe(join(outputDir, `${name}.mp4`))
      expect(json.streams.map((stream) => stream.codec_name)).toEqual(['h264', 'aac'])
      expect(videoOf(json)).toMatchObject({ width, height })
      expect(Number(json.format.duration)).toBeCloseTo(3, 0)
      expect(moovBeforeMdat(join(outputDir, `${name}.mp4`)), `${name} starts fast`).toBe(true)
    }
    expect(outputs[0]!.duration).toBeCloseTo(3, 0)

    const thumbnail = ffprobe(join(outputDir, 'thumbnail.jpg'))
    expect(videoOf(thumbnail)).toMatchObject({ codec_name: 'mjpeg', width: 160, height: 90 })
    expect(outputs[3]).toMatchObject({ width: 160, height: 90 })

    expect(progress[0]).toBe(0)
    expect(progress.at(-1)).toBe(100)
    expect(progress.filter((value) => value === 100)).toHaveLength(1)
    for (const [i, value] of progress.entries()) if (i > 0) expect(value).toBeGreaterThan(progress[i - 1]!)
  })

  it('writes an HLS master listing every variant, whose segments decode', async () => {
    const outputDir = file('out-landscape.mp4')
    const master = readFileSync(join(outputDir, 'hls', 'master.m3u8'), 'utf8')
    expect(master).toMatch(/^#EXTM3U\n/)
    expect(master).toMatch(
      /#EXT-X-STREAM-INF:BANDWIDTH=\d+,AVERAGE-BANDWIDTH=\d+,RESOLUTION=320x180,CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2"\n180p\/index\.m3u8/,
    )
    expect(master).toMatch(/RESOLUTION=256x144,.*\n144p\/index\.m3u8/)
    const variant = readFileSync(join(outputDir, 'hls', '180p', 'index.m3u8'), 'utf8')
    expect(variant).toContain('#EXT-X-PLAYLIST-TYPE:VOD')
    const segments = variant.split('\n').filter((line) => line.endsWith('.ts'))
    expect(segments.length).toBeGreaterThanOrEqual(3)
    expect(readdirSync(join(outputDir, 'hls', '180p')).sort()).toEqual(['index.m3u8', ...segments].sort())
    // Segments of 1 s (hls.segment_duration in the test config): keyframes were forced there.
    for (const duration of variant.matchAll(/#EXTINF:([\d.]+)/g)) expect(Number(duration[1])).toBeLessThanOrEqual(1.05)
    for (const name of ['180p', '144p']) {
      media('ffmpeg', ['-v', 'error', '-i', join(outputDir, 'hls', name, 'index.m3u8'), '-map', '0', '-f', 'null', '-'])
    }
    const segment = ffprobe(join(outputDir, 'hls', '180p', segments[1]!))
    expect(segment.format.format_name).toBe('mpegts')
    expect(segment.streams.map((stream) => stream.codec_name).sort()).toEqual(['aac', 'h264'])
    expect(videoOf(segment)).toMatchObject({ width: 320, height: 180 })
  })

  it('never enlarges: a 640x360 source gets only the 360p rung of the default ladder, at its size', async () => {
    const defaults = testEncoder({ video: { preset: 'ultrafast' }, hls: { enabled: false } })
    const { outputs, outputDir } = await encodeFile(defaults, 'medium.mp4')
    expect(flavorSizes(outputs)).toEqual([['360p', 640, 360]])
    expect(outputs.map((output) => output.kind)).toEqual(['flavor', 'thumbnail'])
    expect(videoOf(ffprobe(join(outputDir, '360p.mp4')))).toMatchObject({ width: 640, height: 360 })
  })

  it('keeps a source smaller than the smallest rung at its own size, in even pixels', async () => {
    const { outputs, outputDir } = await encodeFile(encoder, 'tiny.mkv')
    expect(flavorSizes(outputs)).toEqual([['144p', 100, 60]])
    const json = ffprobe(join(outputDir, '144p.mp4'))
    expect(json.streams.map((stream) => stream.codec_name)).toEqual(['h264'])
    expect(videoOf(json)).toMatchObject({ width: 100, height: 60 })
  })

  it('fits a portrait video in each rung turned', async () => {
    const { outputs, outputDir } = await encodeFile(encoder, 'portrait.mp4')
    expect(flavorSizes(outputs)).toEqual([
      ['360p', 360, 640],
      ['240p', 240, 426],
      ['180p', 180, 320],
      ['144p', 144, 256],
    ])
    expect(videoOf(ffprobe(join(outputDir, '240p.mp4')))).toMatchObject({ width: 240, height: 426 })
    expect(readFileSync(join(outputDir, 'hls', 'master.m3u8'), 'utf8')).toContain('RESOLUTION=360x640')
  })

  it('turns a rotated video upright, leaving no rotation flag', async () => {
    const { outputs, outputDir } = await encodeFile(encoder, 'rotated.mp4')
    expect(flavorSizes(outputs)).toEqual([
      ['180p', 180, 320],
      ['144p', 144, 256],
    ])
    const json = ffprobe(join(outputDir, '180p.mp4'), '-show_entries', 'stream_side_data=rotation:stream_tags=rotate')
    expect(JSON.stringify(json)).not.toMatch(/"rotat(e|ion)"/)
    expect(videoOf(ffprobe(join(outputDir, 'thumbnail.jpg')))).toMatchObject({ width: 160, height: 284 })
  })

  it('encodes a video without sound', async () => {
    const { outputs, outputDir } = await encodeFile(encoder, 'silent.mp4')
    expect(flavorSizes(outputs)).toHaveLength(2)
    expect(ffprobe(join(outputDir, '180p.mp4')).streams.map((stream) => stream.codec_name)).toEqual(['h264'])
    expect(readFileSync(join(outputDir, 'hls', 'master.m3u8'), 'utf8')).toMatch(/CODECS="avc1\.[0-9a-f]{6}"\n/)
  })
})
