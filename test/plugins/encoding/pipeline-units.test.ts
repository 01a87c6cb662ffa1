import { describe, expect, it } from 'vitest'
import { firstUseful } from '../../../plugins/encoding/encoding-run.js'
import { reasonOf } from '../../../plugins/encoding/encoding-failure.js'
import { tokenizePlaylist } from '../../../plugins/encoding/media-delivery.js'
import { probedMimeType, verdict } from '../../../plugins/encoding/media-type.js'
import type { ProbeResult } from '../../../src/kernel/index.js'

const probe = (type: ProbeResult['type'], format: string | null = null): ProbeResult => ({
  type,
  format,
  duration: null,
  width: null,
  height: null,
  streams: [],
})

describe('the type of a probed file', () => {
  it('media: what the probe says, whatever the sniff or the name', () => {
    expect(verdict({ type: 'other', name: 'x.bin' }, probe('video'))).toEqual({ type: 'video' })
    expect(verdict({ type: 'video', name: 'x.mp4' }, probe('audio'))).toEqual({ type: 'audio' })
    expect(verdict({ type: 'document', name: 'x.txt' }, probe('image'))).toEqual({ type: 'image' })
  })

  it('not media: unreadable when the content or the name says media; else document or other', () => {
    expect(verdict({ type: 'video', name: 'clip' }, probe('other'))).toEqual({ unreadable: true })
    expect(verdict({ type: 'document', name: 'notes.MP4' }, probe('other'))).toEqual({ unreadable: true })
    expect(verdict({ type: 'document', name: 'notes.txt' }, probe('other'))).toEqual({ type: 'document' })
    expect(verdict({ type: 'other', name: 'report' }, probe('document'))).toEqual({ type: 'document' })
    expect(verdict({ type: 'other', name: 'blob.bin' }, probe('other'))).toEqual({ type: 'other' })
  })

  it('the media type: kept when it agrees with the probed type, else from the container', () => {
    expect(probedMimeType('video/mp4', 'video', probe('video', 'mov,mp4,m4a,3gp,3g2,mj2'))).toBeUndefined()
    expect(probedMimeType('video/mp4', 'audio', probe('audio', 'mov,mp4,m4a,3gp,3g2,mj2'))).toBe('audio/mp4')
    expect(probedMimeType('application/octet-stream', 'video', probe('video', 'matroska,webm'))).toBe(
      'video/x-matroska',
    )
    expect(probedMimeType('application/octet-stream', 'video', probe('video', 'unknown'))).toBeUndefined()
  })
})

describe('pieces of the pipeline', () => {
  it('the first useful snapshot: the first of at least half the median size (not a black frame)', () => {
    expect(firstUseful([100, 5000, 5200, 4900])).toBe(1)
    expect(firstUseful([5000, 5200, 4900])).toBe(0)
    expect(firstUseful([])).toBe(0)
  })

  it('failure reasons: one line, bounded, without the work folder', () => {
    expect(reasonOf(new Error('ffmpeg failed: /data/work/job-1/source: Invalid data\nfound'), '/data/work/job-1')).toBe(
      'ffmpeg failed: source: Invalid data found',
    )
    expect(reasonOf('x'.repeat(5000))).toHaveLength(1000)
  })

  it('playlists with a token: relative URIs and URI attributes get it; absolute ones and tags do not', () => {
    const playlist = [
      '#EXTM3U',
      '#EXT-X-MAP:URI="init.mp4"',
      '#EXTINF:2.0,',
      'seg-00001.ts',
      '',
      '#EXT-X-STREAM-INF:BANDWIDTH=1000',
      '240p/index.m3u8',
      'https://cdn.example.org/x.ts',
      '/absolute.ts',
      'seg.ts?x=1',
    ].join('\n')
    expect(tokenizePlaylist(playlist, 'a.b').split('\n')).toEqual([
      '#EXTM3U',
      '#EXT-X-MAP:URI="init.mp4?token=a.b"',
      '#EXTINF:2.0,',
      'seg-00001.ts?token=a.b',
      '',
      '#EXT-X-STREAM-INF:BANDWIDTH=1000',
      '240p/index.m3u8?token=a.b',
      'https://cdn.example.org/x.ts',
      '/absolute.ts',
      'seg.ts?x=1&token=a.b',
    ])
  })
})
