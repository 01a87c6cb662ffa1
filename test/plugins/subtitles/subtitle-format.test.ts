import { describe, expect, it } from 'vitest'
import { parseSubtitle, toWebVtt } from '../../../plugins/subtitles/index.js'

const parse = (text: string) => parseSubtitle(Buffer.from(text, 'utf8'))

const SRT = `1
00:00:01,000 --> 00:00:02,500
Hello

2
00:00:03,000 --> 00:01:04,250
Two lines,
the second one
`

describe('parseSubtitle', () => {
  it('reads SRT cues (index optional, CRLF and BOM tolerated)', () => {
    expect(parse(SRT)).toEqual({
      ok: true,
      format: 'srt',
      cues: [
        { start: 1000, end: 2500, text: 'Hello' },
        { start: 3000, end: 64250, text: 'Two lines,\nthe second one' },
      ],
    })
    const crlf = `\uFEFF00:00:01,000 --> 00:00:02,000\r\nNo index\r\n`
    expect(parse(crlf)).toEqual({ ok: true, format: 'srt', cues: [{ start: 1000, end: 2000, text: 'No index' }] })
  })

  it('reads WebVTT: header, identifiers, settings, short times, NOTE blocks skipped', () => {
    const vtt = `WEBVTT - a title

NOTE made by hand

intro
00:01.000 --> 00:02.000 align:start position:10%
Bonjour

01:00:00.000 --> 01:00:01.500
<v Ann>Fin</v>
`
    expect(parse(vtt)).toEqual({
      ok: true,
      format: 'vtt',
      cues: [
        { start: 1000, end: 2000, text: 'Bonjour' },
        { start: 3_600_000, end: 3_601_500, text: '<v Ann>Fin</v>' },
      ],
    })
  })

  it.each([
    ['plain text', 'Just some words\nand more', 'SRT cue 1: no "00:00:01,000 --> 00:00:02,000" timing line'],
    ['an empty file', '', 'the file holds no cue'],
    ['a WebVTT header only', 'WEBVTT\n', 'the file holds no cue'],
    [
      'a cue ending before it starts',
      '1\n00:00:05,000 --> 00:00:02,000\nx\n',
      'SRT cue 1: the cue ends before it starts',
    ],
    [
      'minutes past 59',
      '1\n00:75:00,000 --> 00:76:00,000\nx\n',
      'SRT cue 1: no "00:00:01,000 --> 00:00:02,000" timing line',
    ],
    [
      'a broken WebVTT block',
      'WEBVTT\n\n00:01.000 -> 00:02.000\nx\n',
      'WebVTT block 1: no "00:00:01.000 --> 00:00:02.000" timing line',
    ],
  ])('refuses %s', (_what, text, error) => {
    expect(parse(text)).toEqual({ ok: false, error })
  })

  it('refuses bytes that are not UTF-8 text', () => {
    expect(parseSubtitle(Buffer.from([0xff, 0xfe, 0x00, 0x41]))).toEqual({
      ok: false,
      error: 'subtitles must be UTF-8 text',
    })
    expect(parseSubtitle(Buffer.from('1\n00:00:01,000 --> 00:00:02,000\n\u0000x\n'))).toEqual({
      ok: false,
      error: 'subtitles must be text',
    })
  })
})

describe('toWebVtt', () => {
  it('writes a WebVTT file that parses back to the same cues', () => {
    const parsed = parse(SRT)
    if (!parsed.ok) throw new Error(parsed.error)
    const vtt = toWebVtt(parsed.cues)
    expect(vtt).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nHello\n\n00:00:03.000 --> 00:01:04.250\nTwo lines,\nthe second one\n',
    )
    expect(parse(vtt)).toEqual({ ok: true, format: 'vtt', cues: parsed.cues })
  })

  it('cannot be cut short by an arrow inside a cue', () => {
    expect(toWebVtt([{ start: 0, end: 1000, text: 'a --> b' }])).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\na --&gt; b\n',
    )
  })
})
