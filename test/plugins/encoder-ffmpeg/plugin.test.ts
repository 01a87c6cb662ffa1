import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FfmpegEncoder } from '../../../plugins/encoder-ffmpeg/index.js'
import { findBinaries } from '../../../plugins/encoder-ffmpeg/ffmpeg-binaries.js'
import { loadConfig } from '../../../src/kernel/index.js'
import { findMediaBinary } from '../../../src/shared/binaries.js'
import { bootOn } from '../../helpers/kernel.js'

const PLUGINS = ['root', 'platforms', 'identity', 'storage-fs', 'encoder-ffmpeg']
let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-encoder-plugin-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function encoderOf(options: Parameters<typeof bootOn>[1] = {}): Promise<FfmpegEncoder> {
  const kernel = await bootOn(dir, { ...options, overrides: { plugins: PLUGINS, ...options.overrides } })
  try {
    const encoder = kernel.services.ports.get('encoder')
    expect(encoder).toBeInstanceOf(FfmpegEncoder)
    return encoder as FfmpegEncoder
  } finally {
    await kernel.close()
  }
}

describe('encoder-ffmpeg plugin', () => {
  it('is enabled by default, after files', () => {
    const { config } = loadConfig({ env: {}, cwd: dir, overrides: { data_dir: dir } })
    expect(config.plugins).toContain('encoder-ffmpeg')
    expect(config.plugins.indexOf('encoder-ffmpeg')).toBe(config.plugins.indexOf('files') + 1)
  })

  it('provides the encoder port with the default profiles', async () => {
    const encoder = await encoderOf()
    expect(encoder.config.video.ladder.map((rung) => rung.name)).toEqual(['1080p', '720p', '480p', '360p'])
    expect(encoder.config).toMatchObject({
      time_limit: 21600,
      video: { preset: 'fast', profile: 'high' },
      audio: {
        flavors: [
          { name: 'aac', codec: 'aac' },
          { name: 'mp3', codec: 'mp3' },
        ],
      },
      hls: { enabled: true, segment_duration: 6 },
      thumbnail: { width: 640, position: 0.1 },
    })
    expect(encoder.binaries.ffmpeg.path).toMatch(/ffmpeg$/)
    expect(encoder.binaries.ffprobe.path).toMatch(/ffprobe$/)
  })

  it('takes its settings from the config file and MEDIACTL_ENCODER_FFMPEG__*', async () => {
    const encoder = await encoderOf({
      env: { MEDIACTL_ENCODER_FFMPEG__TIME_LIMIT: '120' },
      overrides: {
        'encoder-ffmpeg': {
          video: { ladder: [{ name: 'sd', width: 640, height: 360 }], preset: 'veryfast' },
          hls: { enabled: false },
        },
      },
    })
    expect(encoder.config.time_limit).toBe(120)
    expect(encoder.config.video.ladder).toEqual([
      { name: 'sd', width: 640, height: 360, crf: 23, maxrate: 0, audio_bitrate: 128 },
    ])
    expect(encoder.config.hls).toEqual({ enabled: false, segment_duration: 6 })
  })

  it('names the flavors by a preset ladder, with a prefix: hd-sd-ld and fun give fun-hd, fun-sd, fun-ld', async () => {
    const encoder = await encoderOf({
      env: { MEDIACTL_ENCODER_FFMPEG__VIDEO__LADDER: 'hd-sd-ld' },
      overrides: { 'encoder-ffmpeg': { video: { name_prefix: 'fun' } } },
    })
    expect(encoder.config.video.ladder_preset).toBe('hd-sd-ld')
    expect(encoder.config.video.ladder.map((rung) => [rung.name, rung.width, rung.height])).toEqual([
      ['fun-hd', 1280, 720],
      ['fun-sd', 854, 480],
      ['fun-ld', 640, 360],
    ])
    // The prefix applies to a custom list too.
    const custom = await encoderOf({
      overrides: {
        'encoder-ffmpeg': { video: { ladder: [{ name: 'x', width: 640, height: 360 }], name_prefix: 'p' } },
      },
    })
    expect([custom.config.video.ladder_preset, custom.config.video.ladder[0]!.name]).toEqual(['custom', 'p-x'])
    await expect(encoderOf({ overrides: { 'encoder-ffmpeg': { video: { ladder: 'uhd' } } } })).rejects.toThrow(
      /encoder-ffmpeg\.video\.ladder/,
    )
    await expect(
      encoderOf({ overrides: { 'encoder-ffmpeg': { video: { name_prefix: 'Bad Prefix' } } } }),
    ).rejects.toThrow(/encoder-ffmpeg\.video\.name_prefix/)
  })

  it('refuses invalid settings, naming them', async () => {
    const section = (value: unknown) => ({ overrides: { 'encoder-ffmpeg': value } })
    await expect(encoderOf(section({ video: { ladder: [{ name: 'odd', width: 641, height: 360 }] } }))).rejects.toThrow(
      /encoder-ffmpeg\.video\.ladder\.0\.width: an even number of pixels/,
    )
    await expect(
      encoderOf(section({ video: { ladder: [{ name: '../x', width: 640, height: 360 }] } })),
    ).rejects.toThrow(/encoder-ffmpeg\.video\.ladder\.0\.name/)
    const twice = [
      { name: 'a', width: 640, height: 360 },
      { name: 'a', width: 320, height: 180 },
    ]
    await expect(encoderOf(section({ video: { ladder: twice } }))).rejects.toThrow(/rung names must be unique/)
    await expect(encoderOf(section({ video: { ladder: [] } }))).rejects.toThrow(/at least one rung/)
    await expect(encoderOf(section({ audio: { flavors: [{ name: 'x', codec: 'opus' }] } }))).rejects.toThrow(
      /encoder-ffmpeg\.audio\.flavors\.0\.codec/,
    )
    await expect(encoderOf(section({ video: { preset: 'warp' } }))).rejects.toThrow(/encoder-ffmpeg\.video\.preset/)
    await expect(encoderOf(section({ time_limit: 0 }))).rejects.toThrow(/encoder-ffmpeg\.time_limit/)
    await expect(encoderOf(section({ bogus: 1 }))).rejects.toThrow(/encoder-ffmpeg: unknown key "bogus"/)
  })

  it('stops the boot with a clear error when a binary is missing', async () => {
    const saved = process.env.FFMPEG_PATH
    process.env.FFMPEG_PATH = join(dir, 'no-ffmpeg')
    try {
      await expect(encoderOf()).rejects.toThrow(
        `encoder-ffmpeg: ffmpeg at ${join(dir, 'no-ffmpeg')} (FFMPEG_PATH) is not an executable file: install ffmpeg`,
      )
    } finally {
      if (saved === undefined) delete process.env.FFMPEG_PATH
      else process.env.FFMPEG_PATH = saved
    }
    writeFileSync(join(dir, 'not-executable'), '')
    expect(() => findBinaries({ FFPROBE_PATH: join(dir, 'not-executable') })).toThrow(
      /ffprobe .* \(FFPROBE_PATH\) is not an executable file: install ffmpeg .* or set FFMPEG_PATH and FFPROBE_PATH/,
    )
  })

  it('runs the bundled static builds with no host character set modules', () => {
    const bundled = findMediaBinary('ffprobe', {})?.source === 'bundled'
    const binaries = findBinaries({})
    expect(binaries.ffprobe.env).toEqual(bundled ? { GCONV_PATH: expect.any(String) } : {})
    expect(findBinaries({ FFMPEG_PATH: binaries.ffmpeg.path }).ffmpeg.env).toEqual({})
  })
})
