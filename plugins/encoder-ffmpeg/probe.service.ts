import { resolve } from 'node:path'
import type { ProbeResult } from '../../src/kernel/index.js'
import { isDocument } from './document-sniff.js'
import { type Binaries, EncoderRun } from './encoder-run.js'
import { PROTOCOLS, demuxerOf } from './ffmpeg-args.js'
import { type FfprobeData, classify, exifOrientation, notMedia, quarterTurns } from './media-type.js'

/** Codecs of pictures that may carry an EXIF orientation. */
const EXIF_CODECS = new Set(['mjpeg', 'tiff'])

interface FrameData {
  frames?: { tags?: { Orientation?: string }; side_data_list?: { rotation?: number }[] }[]
}

/**
 * Probes files with ffprobe (JSON), reading local files only. A file ffprobe cannot read
 * (not media, corrupt, truncated, over the time limit) is `other`, or `document` when its
 * first bytes say so.
 */
export class ProbeService {
  constructor(
    private readonly binaries: Binaries,
    /** Seconds one probe may take. */
    private readonly timeLimit: number,
  ) {}

  async probe(input: string, signal?: AbortSignal): Promise<ProbeResult> {
    const path = resolve(input)
    const run = new EncoderRun(this.binaries, this.timeLimit, signal)
    let result: ProbeResult
    try {
      const data = await run.ffprobe([
        '-v',
        'error',
        ...PROTOCOLS,
        '-show_format',
        '-show_streams',
        '-of',
        'json',
        `file:${path}`,
      ])
      result = classify(data as FfprobeData)
      if (result.type === 'other') result = await this.withPacketDuration(run, path, data as FfprobeData, result)
    } catch {
      if (signal?.aborted) throw signal.reason
      result = notMedia()
    }
    if (result.type === 'other') return (await isDocument(path)) ? notMedia('document') : result
    if (result.type === 'image') return this.oriented(run, path, result)
    return result
  }

  /**
   * Live recordings (a browser's MediaRecorder WebM) carry no duration in their header: the
   * streams are there, the length is not, so they classify as nothing. Their length is then
   * the time of their last packet, read from the packets themselves (the whole file is read,
   * packets only, nothing decoded).
   */
  private async withPacketDuration(
    run: EncoderRun,
    path: string,
    data: FfprobeData,
    result: ProbeResult,
  ): Promise<ProbeResult> {
    const streams = data.streams ?? []
    const undated = !data.format?.duration && streams.every((stream) => !stream.duration)
    const target = streams.some((s) => s.codec_type === 'video')
      ? 'v:0'
      : streams.some((s) => s.codec_type === 'audio')
        ? 'a:0'
        : null
    if (!undated || !target) return result
    const packets = (await run.ffprobe([
      ...['-v', 'error', ...PROTOCOLS, '-select_streams', target],
      ...['-show_entries', 'packet=pts_time', '-of', 'json=c=1', `file:${path}`],
    ])) as { packets?: { pts_time?: string }[] }
    const last = Math.max(0, ...(packets.packets ?? []).map((packet) => Number(packet.pts_time) || 0))
    if (last <= 0) return result
    return classify({ ...data, format: { ...data.format, duration: String(last) } })
  }

  /**
   * A photo's EXIF orientation is no stream property: it is read from the first decoded
   * frame (its tags, or the display matrix newer ffprobe builds derive from them).
   */
  private async oriented(run: EncoderRun, path: string, result: ProbeResult): Promise<ProbeResult> {
    const picture = result.streams.find((stream) => stream.kind === 'video')
    if (!picture || !EXIF_CODECS.has(picture.codec)) return result
    let frame: NonNullable<FrameData['frames']>[number] | undefined
    try {
      const data = (await run.ffprobe([
        '-v',
        'error',
        ...PROTOCOLS,
        '-f',
        demuxerOf(result.format),
        ...(demuxerOf(result.format) === 'image2' ? ['-pattern_type', 'none'] : []),
        '-select_streams',
        'v:0',
        '-read_intervals',
        '%+#1',
        '-show_frames',
        '-show_entries',
        'frame=stream_index:frame_tags=Orientation:frame_side_data=rotation',
        '-of',
        'json',
        `file:${path}`,
      ])) as FrameData
      frame = data.frames?.[0]
    } catch {
      if (run.signal?.aborted) throw run.signal.reason
      // The picture itself was probed; without its orientation it is shown as stored.
      return result
    }
    const tag = Number(frame?.tags?.Orientation?.trim())
    const matrix = frame?.side_data_list?.find((data) => typeof data.rotation === 'number')?.rotation
    const { mirrored, rotation } =
      tag >= 1 && tag <= 8
        ? exifOrientation(tag)
        : { mirrored: false, rotation: matrix === undefined ? 0 : quarterTurns(-matrix) }
    if (!mirrored && rotation === 0) return result
    const turned = rotation % 180 !== 0
    return {
      ...result,
      width: turned ? result.height : result.width,
      height: turned ? result.width : result.height,
      rotation,
      mirrored,
    }
  }
}
