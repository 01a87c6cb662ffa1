import type { FileType } from '../metadata/index.js'

/** What the first bytes of a file tell: its media type and the file type the API shows. */
export interface Sniffed {
  mimeType: string
  type: FileType
}

/** How many leading bytes `sniff` looks at. */
export const SNIFF_BYTES = 4100

const ascii = (bytes: Buffer, at: number, text: string): boolean =>
  bytes.length >= at + text.length && bytes.toString('latin1', at, at + text.length) === text
const hex = (bytes: Buffer, at: number, pattern: string): boolean =>
  bytes.length >= at + pattern.length / 2 && bytes.subarray(at, at + pattern.length / 2).toString('hex') === pattern

// ISO base media brands that hold audio only; everything else in an ftyp box is treated as video.
const AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B '])
const IMAGE_BRANDS = new Set(['avif', 'avis', 'heic', 'heix', 'mif1', 'msf1'])

function isoMedia(bytes: Buffer): Sniffed | undefined {
  if (!ascii(bytes, 4, 'ftyp')) return undefined
  const brand = bytes.toString('latin1', 8, 12)
  if (AUDIO_BRANDS.has(brand)) return { mimeType: 'audio/mp4', type: 'audio' }
  if (IMAGE_BRANDS.has(brand)) return { mimeType: brand.startsWith('avi') ? 'image/avif' : 'image/heic', type: 'image' }
  if (brand.startsWith('qt')) return { mimeType: 'video/quicktime', type: 'video' }
  return { mimeType: 'video/mp4', type: 'video' }
}

function riff(bytes: Buffer): Sniffed | undefined {
  if (!ascii(bytes, 0, 'RIFF')) return undefined
  if (ascii(bytes, 8, 'WAVE')) return { mimeType: 'audio/wav', type: 'audio' }
  if (ascii(bytes, 8, 'AVI ')) return { mimeType: 'video/x-msvideo', type: 'video' }
  if (ascii(bytes, 8, 'WEBP')) return { mimeType: 'image/webp', type: 'image' }
  return undefined
}

/** MPEG transport stream: a sync byte every 188 bytes. */
const transportStream = (bytes: Buffer): boolean =>
  bytes.length >= 189 * 3 && [0, 188, 376].every((at) => bytes[at] === 0x47)

/** MPEG audio frame header (MP3 without an ID3 tag), or ADTS AAC. */
function mpegAudio(bytes: Buffer): Sniffed | undefined {
  if (bytes.length < 2 || bytes[0] !== 0xff || (bytes[1]! & 0xe0) !== 0xe0) return undefined
  return (bytes[1]! & 0x06) === 0 ? { mimeType: 'audio/aac', type: 'audio' } : { mimeType: 'audio/mpeg', type: 'audio' }
}

/** Mostly printable UTF-8 with no NUL: plain text (subtitles, CSV, ...), a document. */
function text(bytes: Buffer): boolean {
  if (bytes.length === 0 || bytes.includes(0)) return false
  const decoded = new TextDecoder('utf-8', { fatal: false }).decode(bytes)
  // eslint-disable-next-line no-control-regex
  const odd = decoded.match(/[\uFFFD\u0001-\u0008\u000E-\u001F]/g)?.length ?? 0
  return odd <= decoded.length / 100
}

/**
 * The file type from the first bytes (API-DECISIONS: by content, not by name). A quick
 * first answer at upload time; the media pipeline probes the whole file and corrects it.
 */
export function sniff(bytes: Buffer): Sniffed {
  const found =
    isoMedia(bytes) ??
    riff(bytes) ??
    (hex(bytes, 0, '1a45dfa3') ? { mimeType: 'video/webm', type: 'video' as const } : undefined) ??
    (ascii(bytes, 0, 'FLV') ? { mimeType: 'video/x-flv', type: 'video' as const } : undefined) ??
    (hex(bytes, 0, '000001ba') || hex(bytes, 0, '000001b3') || transportStream(bytes)
      ? { mimeType: 'video/mpeg', type: 'video' as const }
      : undefined) ??
    (ascii(bytes, 0, 'ID3') ? { mimeType: 'audio/mpeg', type: 'audio' as const } : undefined) ??
    (ascii(bytes, 0, 'OggS') ? { mimeType: 'audio/ogg', type: 'audio' as const } : undefined) ??
    (ascii(bytes, 0, 'fLaC') ? { mimeType: 'audio/flac', type: 'audio' as const } : undefined) ??
    mpegAudio(bytes) ??
    (hex(bytes, 0, 'ffd8ff') ? { mimeType: 'image/jpeg', type: 'image' as const } : undefined) ??
    (hex(bytes, 0, '89504e470d0a1a0a') ? { mimeType: 'image/png', type: 'image' as const } : undefined) ??
    (ascii(bytes, 0, 'GIF87a') || ascii(bytes, 0, 'GIF89a')
      ? { mimeType: 'image/gif', type: 'image' as const }
      : undefined) ??
    (ascii(bytes, 0, 'BM') && bytes.length > 14 ? { mimeType: 'image/bmp', type: 'image' as const } : undefined) ??
    (hex(bytes, 0, '49492a00') || hex(bytes, 0, '4d4d002a')
      ? { mimeType: 'image/tiff', type: 'image' as const }
      : undefined) ??
    (ascii(bytes, 0, '%PDF-') ? { mimeType: 'application/pdf', type: 'document' as const } : undefined) ??
    (hex(bytes, 0, '504b0304') ? { mimeType: 'application/zip', type: 'document' as const } : undefined) ??
    (hex(bytes, 0, 'd0cf11e0a1b11ae1')
      ? { mimeType: 'application/x-ole-storage', type: 'document' as const }
      : undefined) ??
    (ascii(bytes, 0, '{\\rtf') ? { mimeType: 'application/rtf', type: 'document' as const } : undefined)
  if (found) return found
  if (text(bytes)) return { mimeType: 'text/plain', type: 'document' }
  return { mimeType: 'application/octet-stream', type: 'other' }
}
