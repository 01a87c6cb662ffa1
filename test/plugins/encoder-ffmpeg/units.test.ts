import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isDocument } from '../../../plugins/encoder-ffmpeg/document-sniff.js'
import { demuxerOf, inputArgs, num } from '../../../plugins/encoder-ffmpeg/ffmpeg-args.js'
import { progressSeconds } from '../../../plugins/encoder-ffmpeg/ffmpeg-process.js'
import { codecsOf } from '../../../plugins/encoder-ffmpeg/hls-master.js'
import { fitInside, planLadder } from '../../../plugins/encoder-ffmpeg/ladder.js'
import { logoBox } from '../../../plugins/encoder-ffmpeg/logo.service.js'
import {
  classify,
  exifOrientation,
  isRefusedFormat,
  streamRotation,
} from '../../../plugins/encoder-ffmpeg/media-type.js'
import { uprightFilters } from '../../../plugins/encoder-ffmpeg/orientation.js'
import { ProgressTracker } from '../../../plugins/encoder-ffmpeg/progress-tracker.js'
import { encoderConfigSchema } from '../../../plugins/encoder-ffmpeg/index.js'

const LADDER = encoderConfigSchema.parse({}).video.ladder
const sizes = (width: number, height: number): string[] =>
  planLadder(LADDER, { width, height }).map((rung) => `${rung.rung.name} ${rung.width}x${rung.height}`)

describe('the ladder', () => {
  it('gives a source the rungs it fills, never enlarging it', () => {
    expect(sizes(1920, 1080)).toEqual(['1080p 1920x1080', '720p 1280x720', '480p 854x480', '360p 640x360'])
    expect(sizes(3840, 2160)).toEqual(['1080p 1920x1080', '720p 1280x720', '480p 854x480', '360p 640x360'])
    expect(sizes(1280, 720)).toEqual(['720p 1280x720', '480p 854x480', '360p 640x360'])
    expect(sizes(640, 360)).toEqual(['360p 640x360'])
    expect(sizes(700, 400)).toEqual(['480p 700x400', '360p 630x360'])
  })

  it('keeps a wide film in the rung its width calls for', () => {
    expect(sizes(1920, 800)).toEqual(['1080p 1920x800', '720p 1280x534', '480p 854x356', '360p 640x266'])
  })

  it('fits a portrait source in each box turned', () => {
    expect(sizes(1080, 1920)).toEqual(['1080p 1080x1920', '720p 720x1280', '480p 480x854', '360p 360x640'])
    expect(sizes(720, 1280)).toEqual(['720p 720x1280', '480p 480x854', '360p 360x640'])
  })

  it('keeps a source smaller than the last rung at its size, in even pixels', () => {
    expect(sizes(320, 180)).toEqual(['360p 320x180'])
    expect(sizes(321, 181)).toEqual(['360p 320x180'])
    expect(sizes(1, 1)).toEqual(['360p 2x2'])
  })

  it('fits pictures in any size when asked', () => {
    expect(fitInside({ width: 401, height: 301 }, { width: 200, height: 200 }, false)).toEqual({
      width: 200,
      height: 150,
    })
    expect(fitInside({ width: 63, height: 47 }, { width: 200, height: 200 }, false)).toEqual({ width: 63, height: 47 })
  })
})

describe('classification of ffprobe answers', () => {
  const video = { index: 0, codec_type: 'video', codec_name: 'h264', width: 1280, height: 720, duration: '2' }
  const audio = { index: 1, codec_type: 'audio', codec_name: 'aac', sample_rate: '48000', channels: 2 }

  it('refuses playlist, concat and script formats whatever their streams', () => {
    for (const format of ['hls', 'concat', 'dash', 'sdp', 'tty', 'avisynth', 'applehttp', 'imf']) {
      expect(classify({ format: { format_name: format, duration: '2' }, streams: [video, audio] }).type, format).toBe(
        'other',
      )
      expect(isRefusedFormat(format)).toBe(true)
      expect(() => demuxerOf(format)).toThrow(/cannot read a file of format/)
    }
    expect(isRefusedFormat('mov,mp4,m4a,3gp,3g2,mj2')).toBe(false)
  })

  it('tells video, audio with cover art, pictures and animations apart', () => {
    const mp4 = { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '2' }
    expect(classify({ format: mp4, streams: [video, audio] })).toMatchObject({ type: 'video', width: 1280 })
    const cover = { ...video, codec_name: 'mjpeg', disposition: { attached_pic: 1 } }
    expect(classify({ format: { format_name: 'mp3', duration: '2' }, streams: [audio, cover] }).type).toBe('audio')
    expect(classify({ format: { format_name: 'mp3' }, streams: [cover] }).type).toBe('other')
    const png = { ...video, codec_name: 'png' }
    expect(classify({ format: { format_name: 'png_pipe' }, streams: [png] })).toMatchObject({
      type: 'image',
      duration: null,
    })
    const gif = { ...video, codec_name: 'gif' }
    expect(classify({ format: { format_name: 'gif' }, streams: [{ ...gif, nb_frames: '1' }] }).type).toBe('image')
    expect(classify({ format: { format_name: 'gif' }, streams: [{ ...gif, nb_frames: '12' }] }).type).toBe('video')
    expect(classify({ format: { format_name: 'wav' }, streams: [audio] }).type).toBe('other')
    expect(classify({ format: { format_name: 'mp3', duration: '3' }, streams: [] }).type).toBe('other')
    expect(classify({ format: mp4, streams: [{ ...video, codec_name: undefined }] }).type).toBe('other')
  })

  it('applies rotation and pixel aspect to the display size', () => {
    const rotated = { ...video, side_data_list: [{ side_data_type: 'Display Matrix', rotation: -90 }] }
    expect(streamRotation(rotated)).toBe(90)
    expect(streamRotation({ ...video, tags: { rotate: '270' } })).toBe(270)
    const mp4 = { format_name: 'mov', duration: '2' }
    expect(classify({ format: mp4, streams: [rotated] })).toMatchObject({ width: 720, height: 1280, rotation: 90 })
    const anamorphic = { ...video, width: 720, height: 576, sample_aspect_ratio: '16:15' }
    expect(classify({ format: mp4, streams: [anamorphic] })).toMatchObject({ width: 768, height: 576 })
  })

  it('reads EXIF orientations as a mirror and a clockwise rotation', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(exifOrientation)).toEqual([
      { mirrored: false, rotation: 0 },
      { mirrored: true, rotation: 0 },
      { mirrored: false, rotation: 180 },
      { mirrored: true, rotation: 180 },
      { mirrored: true, rotation: 270 },
      { mirrored: false, rotation: 90 },
      { mirrored: true, rotation: 90 },
      { mirrored: false, rotation: 270 },
    ])
    expect(uprightFilters({ rotation: 90 })).toEqual(['transpose=1'])
    expect(uprightFilters({ rotation: 270, mirrored: true })).toEqual(['hflip', 'transpose=2'])
    expect(uprightFilters({})).toEqual([])
  })
})

describe('documents', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-sniff-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const write = (name: string, bytes: Buffer | string): string => {
    writeFileSync(join(dir, name), bytes)
    return join(dir, name)
  }

  it('are recognized by their first bytes only', async () => {
    expect(await isDocument(write('a', '%PDF-1.7\n'))).toBe(true)
    expect(await isDocument(write('b', '{\\rtf1\\ansi}'))).toBe(true)
    expect(await isDocument(write('c', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0])))).toBe(true)
    expect(await isDocument(write('d', 'PK\x03\x04....[Content_Types].xml'))).toBe(true)
    expect(await isDocument(write('e', 'PK\x03\x04....mimetypeapplication/vnd.oasis.opendocument.text'))).toBe(true)
    expect(await isDocument(write('f.pdf', 'PK\x03\x04....photos/1.jpg'))).toBe(false)
    expect(await isDocument(write('g.pdf', 'plain text'))).toBe(false)
    expect(await isDocument(join(dir, 'missing'))).toBe(false)
  })
})

describe('arguments and numbers', () => {
  it('open inputs as local files with the probed demuxer', () => {
    expect(inputArgs('/tmp/x', 'mov,mp4,m4a,3gp,3g2,mj2')).toEqual([
      '-protocol_whitelist',
      'file,pipe',
      '-f',
      'mov',
      '-i',
      'file:/tmp/x',
    ])
    expect(inputArgs('/tmp/%d.png', 'image2', ['-noautorotate'])).toEqual([
      ...['-protocol_whitelist', 'file,pipe', '-f', 'image2', '-pattern_type', 'none', '-noautorotate'],
      ...['-i', 'file:/tmp/%d.png'],
    ])
    expect(() => demuxerOf(null)).toThrow()
    expect(() => demuxerOf('mov;rm -rf')).toThrow()
  })

  it('write filter numbers in plain decimals', () => {
    expect(num(6)).toBe('6')
    expect(num(1e-7)).toBe('0.000000')
    expect(() => num(Number.POSITIVE_INFINITY)).toThrow(RangeError)
  })

  it('read -progress lines', () => {
    expect(progressSeconds('out_time_us=1500000')).toBe(1.5)
    expect(progressSeconds('out_time_ms=2000000')).toBe(2)
    expect(progressSeconds('out_time_us=N/A')).toBeNull()
    expect(progressSeconds('progress=continue')).toBeNull()
  })

  it('give the codecs of HLS variants', () => {
    expect(codecsOf({ profile: 'High', level: 31 }, true)).toBe('avc1.64001f,mp4a.40.2')
    expect(codecsOf({ profile: 'Constrained Baseline', level: 12 }, false)).toBe('avc1.42e00c')
    expect(codecsOf({ profile: 'High 4:4:4 Predictive', level: 31 }, true)).toBeNull()
  })
})

describe('logo placement', () => {
  it('turns percentages into pixels of the frame', () => {
    expect(logoBox({ left: 10, top: 20, width: 25, height: 30 }, { width: 320, height: 180 })).toEqual({
      x: 32,
      y: 36,
      width: 80,
      height: 54,
    })
    expect(logoBox({ left: 0, top: 0, width: 0.1, height: 0.1 }, { width: 320, height: 180 })).toMatchObject({
      width: 1,
      height: 1,
    })
  })
})

describe('progress', () => {
  it('is weighted, monotonic, in tenths, and 100 only when complete', () => {
    const reported: number[] = []
    const tracker = new ProgressTracker((percent) => reported.push(percent), { encode: 9, cut: 1 })
    tracker.start()
    tracker.update('encode', 0.5)
    tracker.update('encode', 0.4)
    tracker.update('encode', 0.50001)
    tracker.update('unknown', 1)
    tracker.update('encode', 1)
    tracker.update('cut', 1)
    tracker.complete()
    tracker.complete()
    expect(reported).toEqual([0, 45, 90, 99.9, 100])
  })
})
