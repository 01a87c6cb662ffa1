import { rm, stat } from 'node:fs/promises'
import type { ProbeResult, ProbedStream } from '../../src/kernel/index.js'
import type { EncoderRun } from './encoder-run.js'
import { EncoderInputError } from './encoder.errors.js'
import { NO_METADATA, inputArgs, num, threadArgs } from './ffmpeg-args.js'
import type { Size } from './ladder.js'

/** One frame to take out of a video as a JPEG. */
export interface FrameGrab {
  input: string
  probe: ProbeResult
  video: ProbedStream
  /** Seconds from the start. */
  at: number
  /** Size of the JPEG, in pixels. */
  size: Size
  /** The file to write. */
  output: string
  threads: number
}

async function written(path: string): Promise<boolean> {
  try {
    return (await stat(path)).size > 0
  } catch {
    return false
  }
}

async function grabAt(run: EncoderRun, grab: FrameGrab, at: number): Promise<boolean> {
  await rm(grab.output, { force: true })
  // -ss before -i seeks the input: straight to the keyframe before `at`, then decodes up to
  // `at` exactly, instead of decoding everything before it.
  const seek = at > 0 ? ['-ss', num(Math.round(at * 1000) / 1000)] : []
  await run.ffmpeg([
    ...inputArgs(grab.input, grab.probe.format, seek),
    '-map',
    `0:${grab.video.index}`,
    '-frames:v',
    '1',
    '-vf',
    `scale=${grab.size.width}:${grab.size.height},setsar=1`,
    '-q:v',
    '3',
    ...threadArgs(grab.threads),
    ...NO_METADATA,
    '-f',
    'mjpeg',
    grab.output,
  ])
  return written(grab.output)
}

/**
 * Writes the frame at `at` seconds as a JPEG. A duration read from the container can
 * overstate the pictures (a sound track longer than them): when no frame comes out at `at`,
 * the frame at half that time is taken, then the first one.
 */
export async function grabFrame(run: EncoderRun, grab: FrameGrab): Promise<void> {
  for (const at of [grab.at, grab.at / 2, 0]) {
    if (await grabAt(run, grab, at)) return
    if (at === 0) break
  }
  throw new EncoderInputError(`no video frame could be decoded (at ${num(grab.at)} s or before)`)
}
