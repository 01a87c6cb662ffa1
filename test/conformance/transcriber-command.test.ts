import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import {
  CommandTranscriber,
  commandConfigSchema,
  segmentsOfJson,
  segmentsOfVtt,
} from '../../plugins/transcriber-command/index.js'
import { transcriberConformance } from './transcriber.conformance.js'

/** A real engine run as a command: ffmpeg's pocketsphinx, where Debian's model is installed. */
const SCRIPT = fileURLToPath(new URL('./transcribe-command.mjs', import.meta.url))
const HAS_MODEL = existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin')

const transcriber = (format: 'vtt' | 'json', extra: Record<string, unknown> = {}) =>
  new CommandTranscriber(
    commandConfigSchema.parse({
      command: [process.execPath, SCRIPT, format, '{input}', '{output}', '{language}'],
      format,
      engine: `pocketsphinx by command (${format})`,
      ...extra,
    }),
  )

if (HAS_MODEL) {
  transcriberConformance('transcriber-command, WebVTT', () => transcriber('vtt'), { maxWordErrorRate: 0.3 })
  transcriberConformance('transcriber-command, JSON', () => transcriber('json'), { maxWordErrorRate: 0.3 })
}

describe('transcriber-command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-command-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const wav = join(dir, 'any.wav')
  writeFileSync(wav, 'not read by the commands below')

  it('says why it is not ready: no command, or one that is not there', async () => {
    expect(await new CommandTranscriber(commandConfigSchema.parse({})).status()).toEqual({
      ready: false,
      engine: 'command',
      reason: 'no command: set transcriber-command.command (docs/configuration.md)',
    })
    const missing = new CommandTranscriber(commandConfigSchema.parse({ command: ['/nowhere/whisper-cli'] }))
    expect(await missing.status()).toMatchObject({
      ready: false,
      reason: expect.stringMatching(/^\/nowhere\/whisper-cli is not/),
    })
  })

  it('names what went wrong: a failing command with its own words, no output written, a timeout', async () => {
    const failing = new CommandTranscriber(
      commandConfigSchema.parse({ command: ['/bin/sh', '-c', 'echo "model not found" >&2; exit 3'] }),
    )
    await expect(failing.transcribe(wav, { language: 'en' })).rejects.toThrow(/exit 3: model not found/)
    const silent = new CommandTranscriber(commandConfigSchema.parse({ command: ['/bin/true', '{input}'] }))
    await expect(silent.transcribe(wav, { language: 'en' })).rejects.toThrow(/wrote no .*transcript\.vtt/)
    const slow = new CommandTranscriber(
      commandConfigSchema.parse({ command: ['/bin/sleep', '30'], timeout_seconds: 1 }),
    )
    await expect(slow.transcribe(wav, { language: 'en' })).rejects.toThrow(/stopped \(SIGKILL\) after 1 s/)
  })

  it('passes arguments without a shell (a file name with spaces and quotes is one argument), {output_base} too', async () => {
    const odd = join(dir, `a "quoted" name; rm -rf x.wav`)
    writeFileSync(odd, 'x')
    const echo = new CommandTranscriber(
      commandConfigSchema.parse({
        command: [
          '/bin/sh',
          '-c',
          'printf "WEBVTT\\n\\n00:00.000 --> 00:01.000\\n%s\\n" "$1" > "$2.vtt"',
          'sh',
          '{input}',
          '{output_base}',
        ],
      }),
    )
    expect((await echo.transcribe(odd, { language: 'en' })).segments).toEqual([{ start: 0, end: 1, text: odd }])
  })

  it('reads WebVTT cues (tags removed) and the documented JSON; refuses what is neither', () => {
    expect(
      segmentsOfVtt(
        'WEBVTT\n\n1\n00:00:01.500 --> 00:00:03.000\n<v Ann>Hello</v>\nthere\n\n01:02.000 --> 01:03.250 align:start\nagain\n',
      ),
    ).toEqual([
      { start: 1.5, end: 3, text: 'Hello there' },
      { start: 62, end: 63.25, text: 'again' },
    ])
    expect(() => segmentsOfVtt('1\n00:00:01.000 --> 00:00:02.000\nno header')).toThrow(/not WebVTT/)
    expect(segmentsOfJson('{"segments":[{"start":0.5,"end":2,"text":" hi "}]}')).toEqual([
      { start: 0.5, end: 2, text: 'hi' },
    ])
    expect(() => segmentsOfJson('{"segments":[{"start":3,"end":2,"text":"x"}]}')).toThrow(/segment 0/)
    expect(() => segmentsOfJson('{"text":"x"}')).toThrow(/no "segments"/)
  })
})
