import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { SNIFF_BYTES, sniff } from '../../../plugins/files/content-type.js'

const hex = (value: string): Buffer => Buffer.from(value.replace(/\s/g, ''), 'hex')
const ascii = (value: string): Buffer => Buffer.from(value, 'latin1')
/** An ISO base media header (`ftyp` box) with a major brand. */
const ftyp = (brand: string): Buffer =>
  Buffer.concat([hex('00000018'), ascii(`ftyp${brand}`), hex('00000000'), ascii('isom')])
/** A few bytes of padding that match nothing (a NUL: not text). */
const padding = Buffer.from([0, 0, 1, 2, 3, 4, 5, 6])

describe('sniff: the type from the first bytes, never from a name', () => {
  it('looks at a bounded head', () => {
    expect(SNIFF_BYTES).toBeGreaterThanOrEqual(189 * 3)
  })

  const cases: [string, Buffer, string, string][] = [
    ['mp4', ftyp('mp42'), 'video/mp4', 'video'],
    ['isom', ftyp('isom'), 'video/mp4', 'video'],
    ['quicktime', ftyp('qt  '), 'video/quicktime', 'video'],
    ['m4a', ftyp('M4A '), 'audio/mp4', 'audio'],
    ['heic', ftyp('heic'), 'image/heic', 'image'],
    ['avif', ftyp('avif'), 'image/avif', 'image'],
    ['webm', hex('1a45dfa3 9f4286 81'), 'video/webm', 'video'],
    ['flv', ascii('FLV\u0001\u0005'), 'video/x-flv', 'video'],
    ['mpeg-ps', hex('000001ba 4400'), 'video/mpeg', 'video'],
    ['avi', Buffer.concat([ascii('RIFF'), hex('00000000'), ascii('AVI LIST')]), 'video/x-msvideo', 'video'],
    ['wav', Buffer.concat([ascii('RIFF'), hex('00000000'), ascii('WAVEfmt ')]), 'audio/wav', 'audio'],
    ['webp', Buffer.concat([ascii('RIFF'), hex('00000000'), ascii('WEBPVP8 ')]), 'image/webp', 'image'],
    ['mp3 id3', ascii('ID3\u0004\u0000'), 'audio/mpeg', 'audio'],
    ['mp3 frame', hex('fffb9064'), 'audio/mpeg', 'audio'],
    ['aac adts', hex('fff15080'), 'audio/aac', 'audio'],
    ['ogg', ascii('OggS\u0000\u0002'), 'audio/ogg', 'audio'],
    ['flac', ascii('fLaC\u0000'), 'audio/flac', 'audio'],
    ['jpeg', hex('ffd8ffe000104a464946'), 'image/jpeg', 'image'],
    ['png', hex('89504e470d0a1a0a0000000d49484452'), 'image/png', 'image'],
    ['gif', ascii('GIF89a\u0001\u0000'), 'image/gif', 'image'],
    ['tiff', hex('49492a0008000000'), 'image/tiff', 'image'],
    ['pdf', ascii('%PDF-1.7\n'), 'application/pdf', 'document'],
    ['zip (office)', hex('504b030414000600'), 'application/zip', 'document'],
    ['ole (old office)', hex('d0cf11e0a1b11ae1'), 'application/x-ole-storage', 'document'],
    ['rtf', ascii('{\\rtf1\\ansi'), 'application/rtf', 'document'],
    ['plain text', Buffer.from('WEBVTT\n\n00:00.000 --> 00:01.000\nBonjour à tous\n'), 'text/plain', 'document'],
  ]
  for (const [label, head, mimeType, type] of cases) {
    it(`${label} → ${type} (${mimeType})`, () => {
      // Text has no NUL: padded, it would be binary.
      const bytes = type === 'document' && mimeType === 'text/plain' ? head : Buffer.concat([head, padding])
      expect(sniff(bytes)).toEqual({ mimeType, type })
    })
  }

  it('an MPEG transport stream: a sync byte every 188 bytes', () => {
    const ts = Buffer.alloc(188 * 4)
    for (let at = 0; at < ts.length; at += 188) ts[at] = 0x47
    expect(sniff(ts)).toEqual({ mimeType: 'video/mpeg', type: 'video' })
    ts[376] = 0
    expect(sniff(ts)).toEqual({ mimeType: 'application/octet-stream', type: 'other' })
  })

  it('anything else is other: unknown bytes, an empty head, a truncated signature', () => {
    const other = { mimeType: 'application/octet-stream', type: 'other' }
    expect(sniff(Buffer.alloc(0))).toEqual(other)
    expect(sniff(Buffer.concat([Buffer.from([0, 1, 2, 3]), randomBytes(1000)]))).toEqual(other)
    expect(sniff(hex('89504e47'))).toEqual(other)
    expect(sniff(ascii('RIFF\u0000\u0000\u0000\u0000XXXX\u0000'))).toEqual(other)
    // Mostly binary: not text even without a NUL.
    expect(sniff(Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 2 ? 0x01 : 0x41))))).toEqual(other)
  })

  it('the name plays no part: the same bytes sniff the same whatever they are called', () => {
    // sniff sees bytes only; this documents that a `.mp4` of PDF bytes is a document.
    expect(sniff(ascii('%PDF-1.4 movie.mp4'))).toEqual({ mimeType: 'application/pdf', type: 'document' })
  })
})
