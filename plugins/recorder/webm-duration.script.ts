/**
 * Browser code (a string: the build copies no other file into dist/) that writes a duration
 * into the head of a WebM recording.
 *
 * Why: MediaRecorder writes WebM as a live stream: no Duration in the segment's Info, no
 * SeekHead, no Cues. ffprobe then reports no duration at all (neither the container's nor the
 * streams'), and the encoder's probe, which tells a video from a still picture by its
 * duration or frame count, would classify the recording as `other` and never encode it. So
 * the page adds the Duration element to Info before sending, touching only the first bytes:
 * the rest of the recording is sent as recorded, never loaded into memory.
 *
 * `webmWithDuration(head, milliseconds)` takes the first bytes of the recording (a
 * `Uint8Array` holding at least the EBML header, the Segment's header and its Info) and
 * answers the pieces of the new head (an array of `Uint8Array`, to put before the rest of
 * the recording), or null when the recording is left as it is: not WebM as expected, Info
 * not within `head`, a Duration already there, or a SeekHead or Cues whose positions would
 * move (MediaRecorder writes neither).
 */
export const WEBM_DURATION_SCRIPT = `function webmWithDuration(head, milliseconds) {
  var EBML = 0x1a45dfa3, SEGMENT = 0x18538067, INFO = 0x1549a966, TIMECODE_SCALE = 0x2ad7b1, DURATION = 0x4489
  var SEEK_HEAD = 0x114d9b74, CUES = 0x1c53bb6b, CLUSTER = 0x1f43b675
  // Bytes of an EBML number starting at \`at\` (its first byte's leading zeros, plus one).
  function widthAt(at) {
    for (var n = 1; n <= 8; n++) if (head[at] & (0x100 >> n)) return n
    return 0
  }
  // An element's ID, size (unknown when every bit of it is 1) and bounds, or null past the end.
  function elementAt(at) {
    var idWidth = widthAt(at)
    if (!idWidth || idWidth > 4 || at + idWidth >= head.length) return null
    var id = 0
    for (var i = 0; i < idWidth; i++) id = id * 256 + head[at + i]
    var sizeAt = at + idWidth
    var width = widthAt(sizeAt)
    if (!width || sizeAt + width > head.length) return null
    var size = head[sizeAt] & (0xff >> width)
    var unknown = size === 0xff >> width
    for (var j = 1; j < width; j++) {
      size = size * 256 + head[sizeAt + j]
      if (head[sizeAt + j] !== 0xff) unknown = false
    }
    var start = sizeAt + width
    return { id: id, at: at, sizeAt: sizeAt, width: width, size: size, unknown: unknown, start: start, end: start + size }
  }
  // A size written on \`width\` bytes (the length marker included).
  function sizeBytes(value, width) {
    var bytes = new Uint8Array(width)
    for (var k = width - 1; k >= 0; k--) {
      bytes[k] = value % 256
      value = Math.floor(value / 256)
    }
    bytes[0] |= 0x100 >> width
    return bytes
  }

  if (!(milliseconds > 0)) return null
  var ebml = elementAt(0)
  if (!ebml || ebml.id !== EBML || ebml.unknown) return null
  var segment = elementAt(ebml.end)
  if (!segment || segment.id !== SEGMENT) return null
  var info = null
  for (var at = segment.start; !info; ) {
    var child = elementAt(at)
    if (!child || child.unknown || child.id === SEEK_HEAD || child.id === CUES || child.id === CLUSTER) return null
    if (child.id === INFO) info = child
    at = child.end
  }
  if (info.end > head.length) return null
  var scale = 1000000
  for (var inner = info.start; inner < info.end; ) {
    var item = elementAt(inner)
    if (!item || item.end > info.end || item.id === DURATION) return null
    if (item.id === TIMECODE_SCALE) {
      scale = 0
      for (var b = item.start; b < item.end; b++) scale = scale * 256 + head[b]
    }
    inner = item.end
  }
  if (!scale) return null

  // Duration: ID 0x4489, size 8, a big-endian float of TimecodeScale units (nanoseconds each).
  var duration = new Uint8Array(11)
  duration.set([0x44, 0x89, 0x88])
  new DataView(duration.buffer).setFloat64(3, (milliseconds * 1000000) / scale)
  // Info's size is written again on 8 bytes, whatever its width was.
  var infoSize = sizeBytes(info.size + duration.length, 8)
  var before = head.slice(0, info.at)
  if (!segment.unknown) {
    var grown = segment.size + duration.length + 8 - info.width
    if (grown >= Math.pow(2, 7 * segment.width) - 1) return null
    before.set(sizeBytes(grown, segment.width), segment.sizeAt)
  }
  return [before, head.slice(info.at, info.sizeAt), infoSize, head.slice(info.start, info.end), duration, head.slice(info.end)]
}
`
