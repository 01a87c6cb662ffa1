import type { TranscriptSegment } from '../../src/kernel/index.js'

/**
 * Segments from what ffmpeg's `ametadata=mode=print` wrote while `silencedetect` and `asr` ran over the audio: blocks
 * of a `frame:… pts_time:<seconds>` line followed by `lavfi.<key>=<value>` lines. `asr` names the words of an utterance
 * only once it has ended (at the frame where its end was recognised); `silencedetect` names where each pause started
 * and ended. An utterance spans the speech between pauses up to the last pause that began before its words came.
 */
export function segmentsOf(printed: string): TranscriptSegment[] {
  const segments: TranscriptSegment[] = []
  /** Speech between pauses, not yet given words: [start, end]. */
  const spoken: [number, number][] = []
  let speechStart = 0
  let at = 0
  for (const line of printed.split('\n')) {
    const frame = /^frame:\d+\s+pts:\S+\s+pts_time:([\d.]+)/.exec(line)
    if (frame) {
      at = Number(frame[1])
      continue
    }
    const entry = /^lavfi\.([\w.]+)=(.*)$/.exec(line)
    if (!entry) continue
    const [, key, value] = entry as unknown as [string, string, string]
    if (key === 'silence_start') {
      const end = Math.max(Number(value), speechStart)
      if (end > speechStart) spoken.push([speechStart, end])
    } else if (key === 'silence_end') {
      speechStart = Number(value)
    } else if (key === 'asr.text') {
      const text = value.trim()
      if (!text) continue
      const heard = spoken.splice(0)
      const start = heard.length ? heard[0]![0] : speechStart
      const end = heard.length ? heard.at(-1)![1] : Math.max(at, start)
      const previous = segments.at(-1)
      segments.push({ start: Math.max(start, previous?.end ?? 0), end, text })
    }
  }
  return segments.filter((segment) => segment.end > segment.start)
}
