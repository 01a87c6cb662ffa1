import { resolve } from 'node:path'
import type { ProbeResult, ProbedStream } from '../../src/kernel/index.js'
import { EncoderInputError } from './encoder.errors.js'
import { isRefusedFormat } from './media-type.js'

/** Only local files and pipes, for every input: no network protocol, whatever a file names inside. */
export const PROTOCOLS = ['-protocol_whitelist', 'file,pipe']

/** Drops the input's tags and chapters: a phone's GPS position or a camera's serial number stay private. */
export const NO_METADATA = ['-map_metadata', '-1', '-map_chapters', '-1']

/**
 * The demuxer ffmpeg must use for a file probed as `format`: the first name of ffprobe's
 * `format_name` (`mov` of `mov,mp4,m4a,3gp,3g2,mj2`). Forcing it means ffmpeg reads the file
 * exactly as it was checked, even if its own detection (another version than ffprobe's)
 * would pick a playlist demuxer.
 */
export function demuxerOf(format: string | null): string {
  const name = format?.split(',')[0] ?? ''
  if (!/^[a-z0-9_]+$/.test(name) || isRefusedFormat(format)) {
    throw new EncoderInputError(`cannot read a file of format "${format ?? 'unknown'}"`)
  }
  return name
}

/** The arguments opening `path` as one input: local protocols only, the probed demuxer, `options` before `-i`. */
export function inputArgs(path: string, format: string | null, options: readonly string[] = []): string[] {
  const demuxer = demuxerOf(format)
  // image2 would read `%d` in a name as a sequence pattern.
  const pattern = demuxer === 'image2' ? ['-pattern_type', 'none'] : []
  return [...PROTOCOLS, '-f', demuxer, ...pattern, ...options, '-i', `file:${resolve(path)}`]
}

/** `-threads` for an output, when the configuration sets it. */
export function threadArgs(threads: number): string[] {
  return threads > 0 ? ['-threads', String(threads)] : []
}

/** The first video stream that is no cover picture, or undefined. */
export function mainVideo(probe: ProbeResult): ProbedStream | undefined {
  return probe.streams.find((stream) => stream.kind === 'video' && !stream.attachedPicture)
}

/** Seconds of the video stream (a sound track may run longer than the pictures), else of the file. */
export function videoSeconds(probe: ProbeResult, video: ProbedStream): number {
  return video.duration ?? probe.duration ?? 0
}

/** The first audio stream, or undefined. */
export function mainAudio(probe: ProbeResult): ProbedStream | undefined {
  return probe.streams.find((stream) => stream.kind === 'audio')
}

/**
 * Encoder arguments for one audio output: stereo at most and 48 kHz at most (what every player
 * and MP3 take), at `kbps`.
 */
export function audioArgs(stream: ProbedStream, codec: 'aac' | 'mp3', kbps: number): string[] {
  const args = ['-c:a', codec === 'aac' ? 'aac' : 'libmp3lame', '-b:a', `${kbps}k`]
  if ((stream.channels ?? 2) > 2) args.push('-ac', '2')
  if ((stream.sampleRate ?? 0) > 48000) args.push('-ar', '48000')
  return args
}

/** A filter number: finite, written in plain decimal (never exponent notation, which filters do not all read). */
export function num(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`)
  return Number.isInteger(value) ? String(value) : value.toFixed(6)
}
