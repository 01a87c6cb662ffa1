import type { TranscriptSegment } from '../../src/kernel/index.js'

/** Seconds of a WebVTT timestamp (`01:02:03.456` or `02:03.456`). */
function secondsOf(stamp: string): number {
  const parts = stamp.split(':').map(Number)
  return parts.reduce((total, part) => total * 60 + part, 0)
}

const TIMING = /^((?:\d+:)?\d{2}:\d{2}\.\d{3})\s+-->\s+((?:\d+:)?\d{2}:\d{2}\.\d{3})/

/** The cues of a WebVTT file as segments: their times and their text on one line, tags removed. */
export function segmentsOfVtt(vtt: string): TranscriptSegment[] {
  if (!/^\uFEFF?WEBVTT(?:[ \t]|$)/.test(vtt.split(/\r?\n/, 1)[0] ?? '')) throw new Error('not WebVTT: no WEBVTT line')
  const segments: TranscriptSegment[] = []
  for (const block of vtt.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/)
    const at = lines.findIndex((line) => TIMING.test(line))
    if (at < 0) continue
    const [, from, to] = TIMING.exec(lines[at]!)!
    const text = lines
      .slice(at + 1)
      .join(' ')
      .replace(/<[^>]*>/g, '')
      .trim()
    if (text) segments.push({ start: secondsOf(from!), end: secondsOf(to!), text })
  }
  return segments
}

/** The segments of the documented JSON: `{"segments":[{"start":0.5,"end":2.1,"text":"…"}]}`, seconds. */
export function segmentsOfJson(json: string): TranscriptSegment[] {
  const parsed = JSON.parse(json) as { segments?: unknown }
  if (!Array.isArray(parsed.segments)) throw new Error('no "segments" array')
  return parsed.segments.map((entry: unknown, index) => {
    const { start, end, text } = (entry ?? {}) as Record<string, unknown>
    if (typeof start !== 'number' || typeof end !== 'number' || typeof text !== 'string' || !(end >= start)) {
      throw new Error(`segment ${index}: needs numbers "start" <= "end" (seconds) and a string "text"`)
    }
    return { start, end, text: text.trim() }
  })
}

/** Segments in time order, none empty, each starting no earlier than the previous one ended. */
export function orderedSegments(segments: TranscriptSegment[]): TranscriptSegment[] {
  const ordered: TranscriptSegment[] = []
  for (const segment of [...segments].sort((a, b) => a.start - b.start)) {
    const start = Math.max(segment.start, ordered.at(-1)?.end ?? 0)
    if (segment.text && segment.end > start) ordered.push({ ...segment, start })
  }
  return ordered
}
