/**
 * Writes a duration into the head of a WebM recording (bundled into the recorder page's
 * script; test/plugins/recorder/recorder-page-webm.test.ts runs this very module on WebM files).
 *
 * Why: MediaRecorder writes WebM as a live stream: no Duration in the segment's Info, no
 * SeekHead, no Cues. ffprobe then reports no duration at all (neither the container's nor the
 * streams'), and the encoder's probe, which tells a video from a still picture by its
 * duration or frame count, would classify the recording as `other` and never encode it. So
 * the page adds the Duration element to Info before sending, touching only the first bytes:
 * the rest of the recording is sent as recorded, never loaded into memory.
 */

const EBML = 0x1a45dfa3
const SEGMENT = 0x18538067
const INFO = 0x1549a966
const TIMECODE_SCALE = 0x2ad7b1
const DURATION = 0x4489
const SEEK_HEAD = 0x114d9b74
const CUES = 0x1c53bb6b
const CLUSTER = 0x1f43b675

/** An EBML element of the head: its ID, where its size is written and on how many bytes, its content's bounds. */
interface Element {
  id: number
  at: number
  sizeAt: number
  width: number
  size: number
  /** Every bit of the size is 1: a live stream's Segment, whose end is not known. */
  unknown: boolean
  start: number
  end: number
}

/**
 * The pieces of the new head (to put before the rest of the recording), given the first bytes
 * of a recording (at least the EBML header, the Segment's header and its Info); null when the
 * recording is left as it is: not WebM as expected, Info not within `head`, a Duration already
 * there, or a SeekHead or Cues whose positions would move (MediaRecorder writes neither).
 */
export function webmWithDuration(head: Uint8Array, milliseconds: number): Uint8Array<ArrayBuffer>[] | null {
  // Bytes of an EBML number starting at `at` (its first byte's leading zeros, plus one).
  function widthAt(at: number): number {
    for (let n = 1; n <= 8; n++) if ((head[at] ?? 0) & (0x100 >> n)) return n
    return 0
  }
  // An element's ID, size and bounds, or null past the end.
  function elementAt(at: number): Element | null {
    const idWidth = widthAt(at)
    if (!idWidth || idWidth > 4 || at + idWidth >= head.length) return null
    let id = 0
    for (let i = 0; i < idWidth; i++) id = id * 256 + head[at + i]!
    const sizeAt = at + idWidth
    const width = widthAt(sizeAt)
    if (!width || sizeAt + width > head.length) return null
    let size = head[sizeAt]! & (0xff >> width)
    let unknown = size === 0xff >> width
    for (let j = 1; j < width; j++) {
      size = size * 256 + head[sizeAt + j]!
      if (head[sizeAt + j] !== 0xff) unknown = false
    }
    const start = sizeAt + width
    return { id, at, sizeAt, width, size, unknown, start, end: start + size }
  }
  // A size written on `width` bytes (the length marker included).
  function sizeBytes(value: number, width: number): Uint8Array<ArrayBuffer> {
    const bytes = new Uint8Array(width)
    for (let k = width - 1; k >= 0; k--) {
      bytes[k] = value % 256
      value = Math.floor(value / 256)
    }
    bytes[0]! |= 0x100 >> width
    return bytes
  }

  if (!(milliseconds > 0)) return null
  const ebml = elementAt(0)
  if (!ebml || ebml.id !== EBML || ebml.unknown) return null
  const segment = elementAt(ebml.end)
  if (!segment || segment.id !== SEGMENT) return null
  let info: Element | null = null
  for (let at = segment.start; !info;) {
    const child = elementAt(at)
    if (!child || child.unknown || child.id === SEEK_HEAD || child.id === CUES || child.id === CLUSTER) return null
    if (child.id === INFO) info = child
    at = child.end
  }
  if (info.end > head.length) return null
  let scale = 1000000
  for (let inner = info.start; inner < info.end;) {
    const item = elementAt(inner)
    if (!item || item.end > info.end || item.id === DURATION) return null
    if (item.id === TIMECODE_SCALE) {
      scale = 0
      for (let b = item.start; b < item.end; b++) scale = scale * 256 + head[b]!
    }
    inner = item.end
  }
  if (!scale) return null

  // Duration: ID 0x4489, size 8, a big-endian float of TimecodeScale units (nanoseconds each).
  const duration = new Uint8Array(11)
  duration.set([0x44, 0x89, 0x88])
  new DataView(duration.buffer).setFloat64(3, (milliseconds * 1000000) / scale)
  // Info's size is written again on 8 bytes, whatever its width was.
  const infoSize = sizeBytes(info.size + duration.length, 8)
  const before = head.slice(0, info.at)
  if (!segment.unknown) {
    const grown = segment.size + duration.length + 8 - info.width
    if (grown >= Math.pow(2, 7 * segment.width) - 1) return null
    before.set(sizeBytes(grown, segment.width), segment.sizeAt)
  }
  return [
    before,
    head.slice(info.at, info.sizeAt),
    infoSize,
    head.slice(info.start, info.end),
    duration,
    head.slice(info.end),
  ]
}
