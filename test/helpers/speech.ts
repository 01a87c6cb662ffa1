import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** Debian's flite, which speaks the test sentences (its voices transcribe well; espeak-ng's do not). */
export const HAS_FLITE = existsSync('/usr/bin/flite')

/** Ten sentences of a lecture, as a course team would say them. */
export const LECTURE = [
  'Welcome to the first lecture of this course.',
  'Today we talk about the history of the printing press.',
  'The press changed how people shared their ideas.',
  'Books became cheaper and many more people learned to read.',
  'Let us look at the first printed books in Europe.',
  'Each page was set by hand, one letter at a time.',
  'This work took many hours for a single page.',
  'Printers soon worked in every large city.',
  'Next week we will read a few of their letters.',
  'Thank you for listening and see you next time.',
]

export interface Speech {
  /** A 16 kHz mono 16-bit WAV file. */
  wav: string
  /** Each sentence and when it is said, in seconds. */
  said: { text: string; start: number; end: number }[]
  remove(): void
}

/** Seconds of a 16 kHz mono 16-bit WAV file (flite's), from its size. */
const secondsOf = (wav: string): number => (readFileSync(wav).length - 44) / 32_000

/**
 * Speaks `sentences` with flite (voice `slt` unless told), each followed by `pause` seconds of silence, into one 16 kHz
 * mono WAV: real speech, made at test time, with the times each sentence is said.
 */
export async function speak(
  sentences: readonly string[],
  options: { voice?: string; pause?: number } = {},
): Promise<Speech> {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-speech-'))
  const pause = options.pause ?? 1.2
  const parts: string[] = []
  const said: Speech['said'] = []
  let at = 0
  for (const [i, text] of sentences.entries()) {
    const part = join(dir, `${i}.wav`)
    await run('flite', ['-voice', options.voice ?? 'slt', '-t', text, '-o', part])
    const seconds = secondsOf(part)
    said.push({ text, start: at, end: at + seconds })
    at += seconds + pause
    parts.push(part)
  }
  const wav = join(dir, 'speech.wav')
  const inputs = parts.flatMap((part) => ['-i', part])
  const padded = parts.map((_, i) => `[${i}:a]aresample=16000,apad=pad_dur=${pause}[p${i}]`).join(';')
  const joined = `${parts.map((_, i) => `[p${i}]`).join('')}concat=n=${parts.length}:v=0:a=1[out]`
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    ...inputs,
    '-filter_complex',
    `${padded};${joined}`,
    '-map',
    '[out]',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-c:a',
    'pcm_s16le',
    wav,
  ])
  return { wav, said, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A WAV of `seconds` of silence (16 kHz mono). */
export async function silence(seconds: number): Promise<Speech> {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-silence-'))
  const wav = join(dir, 'silence.wav')
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    `anullsrc=r=16000:cl=mono`,
    '-t',
    String(seconds),
    '-c:a',
    'pcm_s16le',
    wav,
  ])
  return { wav, said: [], remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Words, lowercased, without punctuation. */
export const wordsOf = (text: string): string[] => text.toLowerCase().match(/[a-z0-9']+/g) ?? []

/** Word error rate of `heard` against `said`: (substitutions + deletions + insertions) / words said. */
export function wordErrorRate(said: string, heard: string): number {
  const a = wordsOf(said)
  const b = wordsOf(heard)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = row
  }
  return a.length ? previous[b.length]! / a.length : 0
}
