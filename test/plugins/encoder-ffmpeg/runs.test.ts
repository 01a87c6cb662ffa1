import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EncoderInputError, EncoderTimeoutError } from '../../../plugins/encoder-ffmpeg/index.js'
import { runningProcesses } from '../../../plugins/encoder-ffmpeg/ffmpeg-process.js'
import { waitFor } from '../../helpers/wait.js'
import type { LogoPlacement, ProbeResult } from '../../../src/kernel/index.js'
import { ffmpeg, ffprobe, makeVideo, moovBeforeMdat, rgbFrame, testEncoder, videoOf } from './media.helpers.js'

let dir: string
const file = (name: string): string => join(dir, name)
const encoder = testEncoder()
/** veryslow on a 10 s source: seconds of work, long enough to stop it in the middle. */
const slow = testEncoder({ video: { preset: 'veryslow' }, hls: { enabled: false } })
const probes: Record<string, ProbeResult> = {}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-runs-'))
  makeVideo(file('video.mp4'), { width: 320, height: 180, seconds: 3 })
  makeVideo(file('long.mp4'), { width: 640, height: 360, seconds: 10 })
  ffmpeg('-f', 'lavfi', '-i', 'color=c=red:s=40x40', '-frames:v', '1', file('logo.png'))
  ffmpeg('-f', 'lavfi', '-i', 'sine=duration=1', file('sound.wav'))
  for (const name of ['video.mp4', 'long.mp4', 'sound.wav']) probes[name] = await encoder.probe(file(name))
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Processes of this machine whose command line names `text` (none may outlive a run). */
function processesNaming(text: string): number {
  let count = 0
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(text)) count++
    } catch {
      // gone meanwhile
    }
  }
  return count
}

describe('encoder-ffmpeg runs: abort, time limit, clean-up', () => {
  it('kills ffmpeg when aborted, rejects with the reason and leaves the output folder empty', async () => {
    const outputDir = file('aborted')
    mkdirSync(outputDir)
    const controller = new AbortController()
    const progress: number[] = []
    const started = Date.now()
    const encoding = slow.encode({
      input: file('long.mp4'),
      outputDir,
      probe: probes['long.mp4']!,
      onProgress: (percent) => {
        progress.push(percent)
        if (percent > 0) controller.abort()
      },
      signal: controller.signal,
    })
    await expect(encoding).rejects.toMatchObject({ name: 'AbortError' })
    expect(Date.now() - started).toBeLessThan(8000)
    expect(progress.at(-1)).toBeLessThan(100)
    expect(readdirSync(outputDir)).toEqual([])
    expect(runningProcesses()).toBe(0)
    expect(processesNaming(outputDir)).toBe(0)
  })

  it('kills ffmpeg over the time limit and rejects, leaving nothing', async () => {
    const limited = testEncoder({ time_limit: 0.5, video: { preset: 'veryslow' }, hls: { enabled: false } })
    const outputDir = file('timed-out')
    mkdirSync(outputDir)
    const started = Date.now()
    const encoding = limited.encode({
      input: file('long.mp4'),
      outputDir,
      probe: probes['long.mp4']!,
      onProgress: () => {},
      signal: new AbortController().signal,
    })
    await expect(encoding).rejects.toBeInstanceOf(EncoderTimeoutError)
    await expect(encoding).rejects.toThrow('over the time limit of 0.5 s (encoder-ffmpeg.time_limit)')
    expect(Date.now() - started).toBeLessThan(3000)
    expect(readdirSync(outputDir)).toEqual([])
    expect(processesNaming(outputDir)).toBe(0)
  })

  it('rejects at once when the signal is already aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    const outputDir = file('never')
    await expect(
      encoder.encode({
        input: file('video.mp4'),
        outputDir,
        probe: probes['video.mp4']!,
        onProgress: () => {},
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: 'AbortError' })
    expect(existsSync(outputDir)).toBe(false)
  })
})

describe('encoder-ffmpeg snapshots', () => {
  it('extracts 10 distinct frames evenly spaced, as 0.jpg to 9.jpg', async () => {
    const outputDir = file('snapshots')
    const paths = await encoder.snapshots(
      file('video.mp4'),
      outputDir,
      10,
      probes['video.mp4']!,
      new AbortController().signal,
    )
    expect(paths).toEqual(Array.from({ length: 10 }, (_, i) => join(outputDir, `${i}.jpg`)))
    expect(readdirSync(outputDir).sort()).toEqual(paths.map((path) => path.slice(outputDir.length + 1)).sort())
    const hashes = new Set(paths.map((path) => createHash('sha1').update(readFileSync(path)).digest('hex')))
    expect(hashes.size).toBe(10)
    for (const path of paths)
      expect(videoOf(ffprobe(path))).toMatchObject({ codec_name: 'mjpeg', width: 160, height: 90 })
  })

  it('gives none for a sound file, and cleans up when aborted', async () => {
    const signal = new AbortController().signal
    expect(await encoder.snapshots(file('sound.wav'), file('none'), 10, probes['sound.wav']!, signal)).toEqual([])
    const controller = new AbortController()
    const outputDir = file('snapshots-aborted')
    const extraction = encoder.snapshots(file('long.mp4'), outputDir, 10, probes['long.mp4']!, controller.signal)
    // Aborted while ffmpeg runs.
    await waitFor(() => runningProcesses() > 0, { interval: 5, message: 'ffmpeg to start' })
    controller.abort()
    await expect(extraction).rejects.toMatchObject({ name: 'AbortError' })
    expect(readdirSync(outputDir)).toEqual([])
    await expect(encoder.snapshots(file('video.mp4'), outputDir, 0, probes['video.mp4']!, signal)).rejects.toThrow(
      RangeError,
    )
  })
})

describe('encoder-ffmpeg logo insertion', () => {
  const placement: LogoPlacement = { left: 10, top: 20, width: 25, height: 30 }
  // In pixels of the 320x180 frame: x 32, y 36, 80 wide, 54 high.
  const box = { x: 32, y: 36, width: 80, height: 54 }

  it('overlays the logo in its box only, as an H.264/AAC MP4 with fast start, with progress', async () => {
    const output = file('with-logo.mp4')
    const progress: number[] = []
    await encoder.insertLogo({
      input: file('video.mp4'),
      probe: probes['video.mp4']!,
      logo: file('logo.png'),
      placement,
      output,
      onProgress: (percent) => progress.push(percent),
      signal: new AbortController().signal,
    })
    const json = ffprobe(output)
    expect(json.streams.map((stream) => stream.codec_name)).toEqual(['h264', 'aac'])
    expect(videoOf(json)).toMatchObject({ width: 320, height: 180 })
    expect(Number(json.format.duration)).toBeCloseTo(3, 0)
    expect(moovBeforeMdat(output)).toBe(true)
    expect(progress[0]).toBe(0)
    expect(progress.at(-1)).toBe(100)
    expect(readdirSync(dir).filter((name) => name.startsWith('.encoder-'))).toEqual([])

    for (const seconds of [0.5, 2.5]) {
      const before = rgbFrame(file('video.mp4'), seconds, 320, 180)
      const after = rgbFrame(output, seconds, 320, 180)
      const margin = 3
      let outside = 0
      let outsideCount = 0
      let reddish = 0
      let insideCount = 0
      for (let y = 0; y < 180; y++) {
        for (let x = 0; x < 320; x++) {
          const i = (y * 320 + x) * 3
          const inBox = (m: number): boolean =>
            x >= box.x - m && x < box.x + box.width + m && y >= box.y - m && y < box.y + box.height + m
          if (!inBox(margin)) {
            outside += Math.abs(after[i]! - before[i]!) + Math.abs(after[i + 1]! - before[i + 1]!)
            outside += Math.abs(after[i + 2]! - before[i + 2]!)
            outsideCount += 3
          } else if (inBox(-margin)) {
            insideCount++
            if (after[i]! > 200 && after[i + 1]! < 60 && after[i + 2]! < 60) reddish++
          }
        }
      }
      // Outside the box only re-encoding noise; inside, the red logo.
      expect(outside / outsideCount, `at ${seconds} s`).toBeLessThan(4)
      expect(reddish / insideCount, `at ${seconds} s`).toBeGreaterThan(0.95)
    }
  })

  it('refuses bad placements, a logo that is no image and an input that is no video', async () => {
    const base = {
      input: file('video.mp4'),
      probe: probes['video.mp4']!,
      logo: file('logo.png'),
      output: file('refused.mp4'),
      onProgress: () => {},
      signal: new AbortController().signal,
    }
    for (const bad of [
      { ...placement, left: -1 },
      { ...placement, top: 100 },
      { ...placement, width: 0 },
      { ...placement, height: 101 },
      { ...placement, left: Number.NaN },
      { ...placement, width: '10;movie=/etc/passwd' as unknown as number },
    ]) {
      await expect(encoder.insertLogo({ ...base, placement: bad }), JSON.stringify(bad)).rejects.toBeInstanceOf(
        EncoderInputError,
      )
    }
    await expect(encoder.insertLogo({ ...base, placement, logo: file('sound.wav') })).rejects.toThrow(
      'the logo must be an image',
    )
    await expect(
      encoder.insertLogo({ ...base, placement, input: file('sound.wav'), probe: probes['sound.wav']! }),
    ).rejects.toThrow('a logo can only be inserted into a video')
    expect(existsSync(base.output)).toBe(false)
  })

  it('leaves no output when aborted', async () => {
    const controller = new AbortController()
    const output = file('logo-aborted.mp4')
    const insertion = slow.insertLogo({
      input: file('long.mp4'),
      probe: probes['long.mp4']!,
      logo: file('logo.png'),
      placement,
      output,
      onProgress: (percent) => {
        if (percent > 0) controller.abort()
      },
      signal: controller.signal,
    })
    setTimeout(() => controller.abort(), 2000)
    await expect(insertion).rejects.toMatchObject({ name: 'AbortError' })
    expect(existsSync(output)).toBe(false)
    expect(readdirSync(dir).filter((name) => name.startsWith('.encoder-'))).toEqual([])
    expect(runningProcesses()).toBe(0)
  })
})
