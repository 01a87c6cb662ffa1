import type { ProbeResult, ProbedStream } from '../../src/kernel/index.js'

/** The parts of ffprobe's `-show_format -show_streams -of json` answer that are read. */
export interface FfprobeData {
  format?: { format_name?: string; duration?: string }
  streams?: FfprobeStream[]
}

export interface FfprobeStream {
  index?: number
  codec_type?: string
  codec_name?: string
  width?: number
  height?: number
  sample_rate?: string
  channels?: number
  duration?: string
  nb_frames?: string
  sample_aspect_ratio?: string
  profile?: string
  level?: number
  disposition?: { attached_pic?: number }
  tags?: Record<string, string>
  side_data_list?: { side_data_type?: string; rotation?: number }[]
}

/**
 * Demuxers that open other files or addresses named inside the input (playlists, concat
 * lists, manifests, session descriptions), that run code (scripts), or that show text as
 * video (ANSI art): user data in these formats is never media here.
 */
const REFUSED_FORMATS = new Set([
  'hls',
  'applehttp',
  'concat',
  'ffconcat',
  'dash',
  'webm_dash_manifest',
  'imf',
  'sdp',
  'rtp',
  'rtsp',
  'sap',
  'lavfi',
  'avisynth',
  'vapoursynth',
  'ffmetadata',
  'tty',
  'bin',
  'xbin',
  'adf',
  'idf',
])

/** True when any name of ffprobe's `format_name` is a refused demuxer. */
export function isRefusedFormat(format: string | null | undefined): boolean {
  return (format ?? '').split(',').some((name) => REFUSED_FORMATS.has(name.trim()))
}

/** Demuxers that read one picture per file (`png_pipe`, `jpeg_pipe`, `webp_pipe`, `image2`, ...). */
function isPictureFormat(format: string): boolean {
  return format === 'image2' || (format.endsWith('_pipe') && format !== 'image2pipe')
}

/** Demuxers of formats that may hold one picture or an animation. */
const ANIMATION_FORMATS = new Set(['gif', 'apng'])

const KINDS: Record<string, ProbedStream['kind']> = {
  video: 'video',
  audio: 'audio',
  subtitle: 'subtitle',
  data: 'data',
  attachment: 'attachment',
}

function positive(value: string | number | undefined): number | null {
  const parsed = Number(value)
  return Number.isFinite(parsed) && parsed > 0 ? parsed : null
}

/** Clockwise degrees a video stream is turned for display, from its rotate tag or display matrix. */
export function streamRotation(stream: FfprobeStream): number {
  const tag = Number(stream.tags?.rotate)
  // The display matrix gives counterclockwise degrees; the older rotate tag, clockwise ones.
  const matrix = stream.side_data_list?.find((data) => typeof data.rotation === 'number')?.rotation
  const degrees = Number.isFinite(tag) && stream.tags?.rotate !== undefined ? tag : matrix === undefined ? 0 : -matrix
  return quarterTurns(degrees)
}

/** Degrees rounded to 0, 90, 180 or 270. */
export function quarterTurns(degrees: number): number {
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360
}

/** EXIF orientation (1 to 8) as a mirror and a clockwise rotation. */
export function exifOrientation(value: number): { mirrored: boolean; rotation: number } {
  const table: Record<number, [boolean, number]> = {
    2: [true, 0],
    3: [false, 180],
    4: [true, 180],
    5: [true, 270],
    6: [false, 90],
    7: [true, 90],
    8: [false, 270],
  }
  const [mirrored, rotation] = table[value] ?? [false, 0]
  return { mirrored, rotation }
}

/** Stored size turned into display size: pixel aspect ratio, then rotation. */
function displaySize(stream: FfprobeStream, rotation: number): { width: number; height: number } | null {
  const width = positive(stream.width)
  const height = positive(stream.height)
  if (!width || !height) return null
  const [num, den] = (stream.sample_aspect_ratio ?? '1:1').split(':').map(Number)
  const aspect = num && den ? num / den : 1
  const shown = { width: Math.max(1, Math.round(width * aspect)), height }
  return rotation % 180 === 0 ? shown : { width: shown.height, height: shown.width }
}

/** Not media: what probing answers for anything that is not (or may not be) read as media. */
export function notMedia(type: 'other' | 'document' = 'other'): ProbeResult {
  return { type, format: null, duration: null, width: null, height: null, streams: [] }
}

/**
 * Decides the type of a file from ffprobe's answer, by content: a moving picture is a video,
 * sound alone (cover art allowed) is audio, a single picture is an image; anything else,
 * refused formats included, is other.
 */
export function classify(data: FfprobeData): ProbeResult {
  const format = data.format?.format_name ?? null
  if (!format || isRefusedFormat(format)) return notMedia()
  const streams: ProbedStream[] = []
  for (const [position, raw] of (data.streams ?? []).entries()) {
    const kind = KINDS[raw.codec_type ?? '']
    if (!kind) continue
    const stream: ProbedStream = { index: raw.index ?? position, kind, codec: raw.codec_name ?? 'unknown' }
    if (kind === 'video') {
      if (raw.width) stream.width = raw.width
      if (raw.height) stream.height = raw.height
      if (raw.disposition?.attached_pic) stream.attachedPicture = true
    }
    if (kind === 'audio') {
      const rate = positive(raw.sample_rate)
      if (rate) stream.sampleRate = rate
      if (raw.channels) stream.channels = raw.channels
    }
    const seconds = positive(raw.duration)
    if (seconds && kind !== 'subtitle') stream.duration = seconds
    streams.push(stream)
  }
  const rawVideo = (data.streams ?? []).find((raw) => raw.codec_type === 'video' && !raw.disposition?.attached_pic)
  const video = streams.find((stream) => stream.kind === 'video' && !stream.attachedPicture)
  const audio = streams.find((stream) => stream.kind === 'audio')
  const duration = positive(data.format?.duration) ?? video?.duration ?? audio?.duration ?? null
  const demuxer = format.split(',')[0]!

  if (rawVideo && video) {
    if (video.codec === 'unknown') return notMedia()
    const frames = positive(rawVideo.nb_frames)
    const still = isPictureFormat(demuxer) || (ANIMATION_FORMATS.has(demuxer) && (frames === null || frames <= 1))
    const rotation = still ? 0 : streamRotation(rawVideo)
    const size = displaySize(rawVideo, rotation)
    if (!size) return notMedia()
    if (still) return { type: 'image', format, duration: null, ...size, streams }
    if ((duration ?? 0) > 0 || (frames ?? 0) > 1) {
      return { type: 'video', format, duration, ...size, rotation, streams }
    }
    return notMedia()
  }
  if (audio && audio.codec !== 'unknown' && (duration ?? 0) > 0) {
    return { type: 'audio', format, duration, width: null, height: null, streams }
  }
  return notMedia()
}
