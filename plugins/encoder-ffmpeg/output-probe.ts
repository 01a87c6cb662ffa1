import { resolve } from 'node:path'
import type { EncoderRun } from './encoder-run.js'
import { PROTOCOLS } from './ffmpeg-args.js'
import type { FfprobeData } from './media-type.js'

/** What the outputs list says of a file the run wrote. */
export interface OutputFacts {
  width?: number
  height?: number
  duration?: number
  /** H.264 profile and level (for the HLS codecs attribute). */
  profile?: string
  level?: number
  hasAudio: boolean
}

/** Probes a file the run just wrote: its real size and duration, rather than what was asked. */
export async function probeOutput(run: EncoderRun, path: string): Promise<OutputFacts> {
  const data = (await run.ffprobe([
    '-v',
    'error',
    ...PROTOCOLS,
    '-show_format',
    '-show_streams',
    '-of',
    'json',
    `file:${resolve(path)}`,
  ])) as FfprobeData
  const video = data.streams?.find((stream) => stream.codec_type === 'video')
  const facts: OutputFacts = { hasAudio: Boolean(data.streams?.some((stream) => stream.codec_type === 'audio')) }
  if (video?.width && video.height) Object.assign(facts, { width: video.width, height: video.height })
  if (video?.profile) facts.profile = video.profile
  if (video?.level) facts.level = video.level
  const duration = Number(data.format?.duration)
  if (Number.isFinite(duration) && duration > 0) facts.duration = Math.round(duration * 1000) / 1000
  return facts
}
