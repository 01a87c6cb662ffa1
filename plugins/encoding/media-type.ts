import { extname } from 'node:path'
import type { ProbeResult } from '../../src/kernel/index.js'
import type { FileView } from '../files/index.js'

type FileType = FileView['type']

/**
 * Extensions that say "this is audio, video or a picture", or a playlist of media (HLS,
 * concat lists, SDP, ...): the encoder never follows a playlist (it could name local files or
 * network addresses), so a playlist uploaded as media fails instead of passing as a document.
 */
const MEDIA_EXTENSIONS = new Set(
  (
    'mp4 m4v mov qt mkv webm avi wmv asf flv f4v mpg mpeg m2v vob ts mts m2ts 3gp 3g2 ogv mxf ' +
    'mp3 m4a m4b aac wav wave flac ogg oga opus wma aif aiff amr ' +
    'jpg jpeg png gif webp bmp tif tiff heic heif avif ' +
    'm3u8 m3u ffconcat concat sdp pls xspf'
  ).split(' '),
)

/** What the pipeline does with a probed file. */
export type Verdict = { type: 'video' | 'audio' | 'image' } | { type: 'document' | 'other' } | { unreadable: true }

/**
 * The file's type once probed (API-DECISIONS: by content). Media is what the probe says.
 * When the probe finds no media, a file that looks like media, by its first bytes or by its
 * name's extension, is unreadable: corrupt, truncated or unsupported, and its encoding fails;
 * anything else keeps the upload's answer, `document` (the probe recognizes fewer documents
 * than the upload's sniff: plain text, for one) or `other`. The name never makes a type.
 */
export function verdict(file: Pick<FileView, 'type' | 'name'>, probe: ProbeResult): Verdict {
  if (probe.type === 'video' || probe.type === 'audio' || probe.type === 'image') return { type: probe.type }
  const namedMedia = MEDIA_EXTENSIONS.has(extname(file.name).slice(1).toLowerCase())
  if (file.type === 'video' || file.type === 'audio' || file.type === 'image' || namedMedia) return { unreadable: true }
  if (probe.type === 'document' || file.type === 'document') return { type: 'document' }
  return { type: 'other' }
}

/** Media types of container formats (the first name of ffprobe's `format_name`), by probed type. */
const FORMAT_TYPES: Record<string, Partial<Record<FileType, string>>> = {
  mov: { video: 'video/mp4', audio: 'audio/mp4' },
  matroska: { video: 'video/x-matroska', audio: 'audio/x-matroska' },
  avi: { video: 'video/x-msvideo' },
  mpegts: { video: 'video/mp2t', audio: 'audio/mp2t' },
  mpeg: { video: 'video/mpeg', audio: 'audio/mpeg' },
  flv: { video: 'video/x-flv' },
  asf: { video: 'video/x-ms-asf', audio: 'audio/x-ms-wma' },
  ogg: { video: 'video/ogg', audio: 'audio/ogg' },
  mp3: { audio: 'audio/mpeg' },
  wav: { audio: 'audio/wav' },
  flac: { audio: 'audio/flac' },
  aac: { audio: 'audio/aac' },
  png_pipe: { image: 'image/png' },
  jpeg_pipe: { image: 'image/jpeg' },
  gif: { image: 'image/gif' },
  webp_pipe: { image: 'image/webp' },
  bmp_pipe: { image: 'image/bmp' },
  tiff_pipe: { image: 'image/tiff' },
}

/**
 * A better media type than the upload's sniff, when the probe contradicts it (an MP4 holding
 * sound only is `audio/mp4`; a format the sniff did not know gets its type); undefined to
 * keep the sniffed one.
 */
export function probedMimeType(sniffed: string, type: FileType, probe: ProbeResult): string | undefined {
  if (sniffed.startsWith(`${type}/`)) return undefined
  const format = probe.format?.split(',')[0] ?? ''
  return FORMAT_TYPES[format]?.[type]
}
