/** One cue: when it shows, and its text (lines joined by `\n`). */
export interface Cue {
  /** Milliseconds. */
  start: number
  end: number
  text: string
}

/** A parsed subtitle file, or why it is not one. */
export type ParsedSubtitle = { ok: true; format: 'srt' | 'vtt'; cues: Cue[] } | { ok: false; error: string }

const SRT_TIME = /^(\d{1,3}):(\d{2}):(\d{2})[,.](\d{3})$/
const VTT_TIME = /^(?:(\d{1,3}):)?(\d{2}):(\d{2})\.(\d{3})$/

function milliseconds(match: RegExpExecArray | null): number | null {
  if (!match) return null
  const [hours, minutes, seconds, millis] = [
    Number(match[1] ?? 0),
    Number(match[2]),
    Number(match[3]),
    Number(match[4]),
  ]
  if (minutes > 59 || seconds > 59) return null
  return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
}

/** `start --> end` (WebVTT: settings may follow); null when the line is no timing line. */
function timing(line: string, pattern: RegExp): { start: number; end: number } | null {
  const parts = line.trim().split(/\s+-->\s+/)
  if (parts.length !== 2) return null
  const start = milliseconds(pattern.exec(parts[0]!.trim()))
  const end = milliseconds(pattern.exec(parts[1]!.trim().split(/\s+/)[0]!))
  if (start === null || end === null) return null
  return { start, end }
}

/** Blocks of non-empty lines, separated by blank lines; BOM and CR dropped. */
function blocks(text: string): string[][] {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((block) => block.split('\n').filter((line) => line.trim() !== ''))
    .filter((lines) => lines.length > 0)
}

function checkCue(cue: { start: number; end: number }, where: string): string | null {
  return cue.end > cue.start ? null : `${where}: the cue ends before it starts`
}

/** One cue from its block's lines, its timing on line `at`: the cue, or what is wrong with it. */
function cueOf(lines: string[], at: number, pattern: RegExp, label: string, example: string): Cue | string {
  const times = lines[at] === undefined ? null : timing(lines[at]!, pattern)
  if (!times) return `${label}: no "${example}" timing line`
  const problem = checkCue(times, label)
  if (problem) return problem
  return {
    ...times,
    text: lines
      .slice(at + 1)
      .join('\n')
      .trim(),
  }
}

/** The answer for the cues read, or the first problem. */
function parsed(format: 'srt' | 'vtt', cues: (Cue | string)[]): ParsedSubtitle {
  const problem = cues.find((cue): cue is string => typeof cue === 'string')
  if (problem !== undefined) return { ok: false, error: problem }
  if (cues.length === 0) return { ok: false, error: 'the file holds no cue' }
  return { ok: true, format, cues: cues as Cue[] }
}

function parseSrt(text: string): ParsedSubtitle {
  const cues = blocks(text).map((lines, n) => {
    const at = /^\d+$/.test(lines[0]!.trim()) ? 1 : 0
    return cueOf(lines, at, SRT_TIME, `SRT cue ${n + 1}`, '00:00:01,000 --> 00:00:02,000')
  })
  return parsed('srt', cues)
}

function parseVtt(text: string): ParsedSubtitle {
  const [header, ...rest] = blocks(text)
  if (!header || !/^WEBVTT(?:[ \t].*)?$/.test(header[0]!)) {
    return { ok: false, error: 'a WebVTT file starts with "WEBVTT"' }
  }
  const cues = rest
    .map((lines, n) => ({ lines, n }))
    .filter(({ lines }) => !/^(NOTE|STYLE|REGION)(\s|$)/.test(lines[0]!))
    .map(({ lines, n }) =>
      cueOf(
        lines,
        lines[0]!.includes('-->') ? 0 : 1,
        VTT_TIME,
        `WebVTT block ${n + 1}`,
        '00:00:01.000 --> 00:00:02.000',
      ),
    )
  return parsed('vtt', cues)
}

/**
 * Parses a subtitle file, SRT or WebVTT (told apart by the `WEBVTT` header), whole: every
 * cue needs a valid timing line that ends after it starts. Text must be UTF-8.
 */
export function parseSubtitle(bytes: Buffer): ParsedSubtitle {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return { ok: false, error: 'subtitles must be UTF-8 text' }
  }
  if (text.includes('\u0000')) return { ok: false, error: 'subtitles must be text' }
  return /^\uFEFF?WEBVTT/.test(text) ? parseVtt(text) : parseSrt(text)
}

const clock = (ms: number): string => {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0')
  const hours = Math.floor(ms / 3_600_000)
  const minutes = Math.floor((ms % 3_600_000) / 60_000)
  const seconds = Math.floor((ms % 60_000) / 1000)
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}.${pad(ms % 1000, 3)}`
}

/** The cues as a WebVTT file (what players read); `-->` inside a cue's text cannot end it early. */
export function toWebVtt(cues: readonly Cue[]): string {
  const body = cues.map((cue) => `${clock(cue.start)} --> ${clock(cue.end)}\n${cue.text.replace(/-->/g, '--&gt;')}`)
  return `WEBVTT\n\n${body.join('\n\n')}\n`
}
