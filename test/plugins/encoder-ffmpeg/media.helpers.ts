import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { type EncoderConfig, FfmpegEncoder, encoderConfigSchema } from '../../../plugins/encoder-ffmpeg/index.js'
import { findBinaries } from '../../../plugins/encoder-ffmpeg/ffmpeg-binaries.js'

export const BINARIES = findBinaries()

/** A small ladder so tests stay fast; the smallest rung is 256x144. */
export const TEST_LADDER = [
  { name: '360p', width: 640, height: 360, crf: 30, maxrate: 600, audio_bitrate: 64 },
  { name: '240p', width: 426, height: 240, crf: 30, maxrate: 400, audio_bitrate: 64 },
  { name: '180p', width: 320, height: 180, crf: 30, maxrate: 300, audio_bitrate: 64 },
  { name: '144p', width: 256, height: 144, crf: 30, maxrate: 200, audio_bitrate: 48 },
]

/** The plugin's config for tests: the ultrafast preset, the small ladder, 1 s segments, overrides last. */
export function testConfig(overrides: Record<string, unknown> = {}): EncoderConfig {
  return encoderConfigSchema.parse({
    threads: 1,
    video: { ladder: TEST_LADDER, preset: 'ultrafast' },
    hls: { segment_duration: 1 },
    thumbnail: { width: 160 },
    snapshots: { width: 160 },
    ...overrides,
  })
}

export function testEncoder(overrides: Record<string, unknown> = {}): FfmpegEncoder {
  return new FfmpegEncoder(BINARIES, testConfig(overrides))
}

/** Runs ffmpeg or ffprobe as the plugin does (its environment included); stdout as a buffer. */
export function media(which: 'ffmpeg' | 'ffprobe', args: string[]): Buffer {
  const binary = BINARIES[which]
  return execFileSync(binary.path, args, {
    env: { ...process.env, ...binary.env },
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Runs ffmpeg to make a fixture (quiet, overwriting). */
export function ffmpeg(...args: string[]): void {
  media('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args])
}

/** ffprobe's JSON of a file (streams and format). */
export function ffprobe(path: string, ...extra: string[]): FfprobeJson {
  const out = media('ffprobe', ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', ...extra, path])
  return JSON.parse(out.toString('utf8')) as FfprobeJson
}

export interface FfprobeJson {
  format: { format_name: string; duration?: string }
  streams: { codec_type: string; codec_name: string; width?: number; height?: number; duration?: string }[]
}

/** The video stream of an ffprobe answer. */
export function videoOf(json: FfprobeJson): FfprobeJson['streams'][number] {
  const video = json.streams.find((stream) => stream.codec_type === 'video')
  if (!video) throw new Error('no video stream')
  return video
}

/** A video of `seconds` from testsrc (a frame counter, so frames differ) with a 440 Hz tone unless `silent`. */
export function makeVideo(
  path: string,
  options: { width: number; height: number; seconds: number; silent?: boolean; rate?: number },
): string {
  const { width, height, seconds } = options
  const rate = options.rate ?? 25
  ffmpeg(
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=${width}x${height}:rate=${rate}`,
    ...(options.silent ? [] : ['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`]),
    '-pix_fmt',
    'yuv420p',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    ...(options.silent ? [] : ['-c:a', 'aac', '-shortest']),
    path,
  )
  return path
}

/**
 * A JPEG with an EXIF APP1 segment saying orientation `value` (6: turn 90° clockwise to
 * show), inserted after the start-of-image marker.
 */
export function makeExifJpeg(path: string, source: string, value: number): string {
  const jpeg = readFileSync(source)
  const tiff = Buffer.from([
    0x4d,
    0x4d,
    0,
    0x2a,
    0,
    0,
    0,
    8,
    0,
    1,
    0x01,
    0x12,
    0,
    3,
    0,
    0,
    0,
    1,
    0,
    value,
    0,
    0,
    0,
    0,
    0,
    0,
  ])
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff])
  const length = Buffer.alloc(2)
  length.writeUInt16BE(body.length + 2)
  writeFileSync(path, Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xe1]), length, body, jpeg.subarray(2)]))
  return path
}

/** One decoded frame as raw RGB bytes (`width * height * 3`), at `seconds`, scaled to `width` x `height`. */
export function rgbFrame(path: string, seconds: number, width: number, height: number): Buffer {
  return media('ffmpeg', [
    ...['-v', 'error', '-ss', String(seconds), '-i', path, '-frames:v', '1'],
    ...['-vf', `scale=${width}:${height}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
  ])
}

/** True when the MP4's `moov` box comes before its `mdat` box (fast start: playable while downloading). */
export function moovBeforeMdat(path: string): boolean {
  const bytes = readFileSync(path)
  let offset = 0
  while (offset + 8 <= bytes.length) {
    const size = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    if (type === 'moov') return true
    if (type === 'mdat') return false
    if (size < 8) return false
    offset += size
  }
  return false
}
