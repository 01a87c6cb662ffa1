import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
// Browser code with no DOM in it: the very module the recorder page's script bundles.
import { webmWithDuration } from '../../../plugins/recorder/browser/webm-duration.js'
import { findMediaBinary } from '../../../src/shared/binaries.js'
import { ffprobe } from '../encoding/encoding.helpers.js'

/**
 * The recorder page writes a duration into the head of a MediaRecorder WebM before sending it
 * (plugins/recorder/browser/webm-duration.ts says why). The browser function, run here on WebM files.
 */

const run = promisify(execFile)

/** An EBML element: ID bytes, size on `width` bytes (or unknown), content. */
function element(id: number[], content: Buffer, width = 1, unknown = false): Buffer {
  const size = Buffer.alloc(width)
  if (unknown) size.fill(0xff)
  else size.writeUIntBE(content.length, 0, width)
  size[0]! |= 0x100 >> width
  if (unknown) size[0] = (0xff >> width) | (0x100 >> width)
  return Buffer.concat([Buffer.from(id), size, content])
}

const uint = (id: number[], value: number): Buffer =>
  element(id, Buffer.from([value >> 16, (value >> 8) & 255, value & 255]))
const EBML_HEADER = element([0x1a, 0x45, 0xdf, 0xa3], element([0x42, 0x82], Buffer.from('webm')))
const TRACKS = element([0x16, 0x54, 0xae, 0x6b], Buffer.alloc(20, 1))
const CLUSTER = element([0x1f, 0x43, 0xb6, 0x75], Buffer.alloc(100, 2), 1, true)

/** An EBML element's ID, and where its content starts and ends (known sizes only). */
function elementIn(webm: Buffer, at: number): { id: number; start: number; end: number } {
  const widthOf = (first: number): number => 9 - first.toString(2).length
  const idWidth = widthOf(webm[at]!)
  let id = 0
  for (let i = 0; i < idWidth; i++) id = id * 256 + webm[at + i]!
  const sizeAt = at + idWidth
  const width = widthOf(webm[sizeAt]!)
  let size = webm[sizeAt]! & (0xff >> width)
  for (let i = 1; i < width; i++) size = size * 256 + webm[sizeAt + i]!
  return { id, start: sizeAt + width, end: sizeAt + width + size }
}

/**
 * A live WebM of ffmpeg as MediaRecorder writes it: ffmpeg 5 puts a SeekHead and a Void
 * (room for Cues) before Info even in live mode, where 4.x and MediaRecorder write none; the
 * Segment's size is unknown, so dropping them moves nothing else.
 */
function asMediaRecorderWrites(webm: Buffer): Buffer {
  const segment = elementIn(webm, elementIn(webm, 0).end)
  let at = segment.start
  for (let child = elementIn(webm, at); child.id === 0x114d9b74 || child.id === 0xec; child = elementIn(webm, at)) {
    at = child.end
  }
  return Buffer.concat([webm.subarray(0, segment.start), webm.subarray(at)])
}

/** An Info element with a TimecodeScale (µs here) and a MuxingApp; `extra` goes in it too. */
const info = (extra: Buffer = Buffer.alloc(0), scale = 1000): Buffer =>
  element(
    [0x15, 0x49, 0xa9, 0x66],
    Buffer.concat([uint([0x2a, 0xd7, 0xb1], scale), element([0x4d, 0x80], Buffer.from('test')), extra]),
  )

/** A live-style WebM: Segment of unknown size (or `segmentWidth` bytes), then `children`. */
function webm(children: Buffer[], segmentWidth?: number): Buffer {
  const content = Buffer.concat(children)
  const segment = element([0x18, 0x53, 0x80, 0x67], content, segmentWidth ?? 8, segmentWidth === undefined)
  return Buffer.concat([EBML_HEADER, segment])
}

const patched = (file: Buffer, milliseconds: number, headSize = 65536): Buffer | null => {
  const head = new Uint8Array(file.subarray(0, headSize))
  const parts = webmWithDuration(head, milliseconds)
  return parts && Buffer.concat([...parts.map((part) => Buffer.from(part)), file.subarray(head.length)])
}

describe('webmWithDuration (recorder page)', () => {
  it('adds a Duration to Info, in TimecodeScale units, and grows only Info', () => {
    const file = webm([info(), TRACKS, CLUSTER])
    const out = patched(file, 2500)!
    expect(out.length).toBe(file.length + 11 + 7)
    const start = EBML_HEADER.length + 12
    // Info: its ID, its size again on 8 bytes, its content, then Duration (0x4489, 8 bytes, float).
    expect([...out.subarray(start, start + 4)]).toEqual([0x15, 0x49, 0xa9, 0x66])
    const size = Number(out.readBigUInt64BE(start + 4) & 0x00ffffffffffffffn)
    expect(out[start + 4]).toBe(0x01)
    const oldContent = info().subarray(5)
    expect(size).toBe(oldContent.length + 11)
    expect(out.subarray(start + 12, start + 12 + oldContent.length).equals(oldContent)).toBe(true)
    const duration = start + 12 + oldContent.length
    expect([...out.subarray(duration, duration + 3)]).toEqual([0x44, 0x89, 0x88])
    // 2.5 s in units of 1000 ns.
    expect(out.readDoubleBE(duration + 3)).toBe(2500 * 1000)
    expect(out.subarray(duration + 11).equals(Buffer.concat([TRACKS, CLUSTER]))).toBe(true)
  })

  it('grows a Segment of known size by what Info grew, and skips Void elements before Info', () => {
    const voided = element([0xec], Buffer.alloc(30))
    const file = webm([voided, info(), TRACKS, CLUSTER], 4)
    const out = patched(file, 1000)!
    const sizeAt = EBML_HEADER.length + 4
    const before = file.readUInt32BE(sizeAt) & 0x0fffffff
    expect(out.readUInt32BE(sizeAt) & 0x0fffffff).toBe(before + 18)
    expect(out[sizeAt]! >> 4).toBe(1)
  })

  it('leaves alone what it cannot safely change', () => {
    const duration = element([0x44, 0x89], Buffer.alloc(8))
    const seekHead = element([0x11, 0x4d, 0x9b, 0x74], Buffer.alloc(10))
    const cues = element([0x1c, 0x53, 0xbb, 0x6b], Buffer.alloc(10))
    // A Duration already there; positions that would move; no Info before the first Cluster.
    expect(patched(webm([info(duration), TRACKS, CLUSTER]), 1000)).toBeNull()
    expect(patched(webm([seekHead, info(), TRACKS, CLUSTER]), 1000)).toBeNull()
    expect(patched(webm([cues, info(), TRACKS, CLUSTER]), 1000)).toBeNull()
    expect(patched(webm([TRACKS, CLUSTER, info()]), 1000)).toBeNull()
    // Info beyond the head that was read; a zero duration; not WebM at all.
    expect(patched(webm([info(), TRACKS, CLUSTER]), 1000, EBML_HEADER.length + 20)).toBeNull()
    expect(patched(webm([info(), TRACKS, CLUSTER]), 0)).toBeNull()
    expect(patched(Buffer.from('RIFF....WAVEfmt '), 1000)).toBeNull()
    expect(patched(Buffer.alloc(0), 1000)).toBeNull()
    expect(patched(Buffer.alloc(64, 0xff), 1000)).toBeNull()
  })

  it('makes a live WebM (no duration, as MediaRecorder writes it) one that ffprobe gives a duration', async () => {
    const { stdout } = await run(
      findMediaBinary('ffmpeg')!.path,
      [
        ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=2'],
        ...['-f', 'lavfi', '-i', 'sine=duration=2', '-c:v', 'libvpx', '-c:a', 'libopus'],
        ...['-live', '1', '-f', 'webm', 'pipe:1'],
      ],
      { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
    )
    const live = asMediaRecorderWrites(stdout as unknown as Buffer)
    expect((await ffprobe(live)).format.duration).toBeUndefined()
    const fixed = patched(live, 2000)!
    const probed = await ffprobe(fixed)
    expect(probed.format.duration).toBe('2.000000')
    expect(probed.streams.map((s) => s.codec_name)).toEqual(['vp8', 'opus'])
  })
})
