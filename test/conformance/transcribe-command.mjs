#!/usr/bin/env node
// An engine for transcriber-command's tests, run as an operator's command would be: real work, no canned answer. It
// transcribes the WAV with Debian's ffmpeg (its pocketsphinx `asr` filter, the pocketsphinx-en-us model) and writes
// what it heard as WebVTT or as the documented JSON, in whole utterances timed by the pauses around them.
//   transcribe-command.mjs <vtt|json> <input.wav> <output> <language>
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'

const [format, input, output, language] = process.argv.slice(2)
if (language !== 'en') {
  process.stderr.write(`transcribe-command: no model for ${language}\n`)
  process.exit(2)
}
const model = '/usr/share/pocketsphinx/model/en-us'
const printed = execFileSync(
  'ffmpeg',
  [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-i',
    input,
    '-af',
    `apad=pad_dur=1.5,silencedetect=noise=-35dB:duration=0.4,asr=hmm=${model}/en-us:dict=${model}/cmudict-en-us.dict:lm=${model}/en-us.lm.bin,ametadata=mode=print:file=-`,
    '-f',
    'null',
    '-',
  ],
  { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
)
// Speech runs from the end of a pause to the start of the next; an utterance's words come once it has ended.
const segments = []
let speechFrom = 0
let spokenUntil = null
let utteranceFrom = null
for (const line of printed.split('\n')) {
  const [key, value] = line.split('=')
  if (key === 'lavfi.silence_start') {
    if (Number(value) > speechFrom) {
      utteranceFrom ??= speechFrom
      spokenUntil = Number(value)
    }
  } else if (key === 'lavfi.silence_end') speechFrom = Number(value)
  else if (key === 'lavfi.asr.text' && value.trim() && spokenUntil !== null) {
    segments.push({ start: utteranceFrom, end: spokenUntil, text: value.trim() })
    utteranceFrom = null
    spokenUntil = null
  }
}
const stamp = (seconds) => new Date(Math.round(seconds * 1000)).toISOString().slice(11, 23)
writeFileSync(
  output,
  format === 'json'
    ? JSON.stringify({ segments })
    : `WEBVTT\n\n${segments.map((s) => `${stamp(s.start)} --> ${stamp(s.end)}\n${s.text}\n`).join('\n')}`,
)
