import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { Transcript, TranscriberPort, TranscriberStatus } from '../../src/kernel/index.js'
import { findMediaBinary } from '../../src/shared/binaries.js'
import { segmentsOf } from './asr-events.js'
import type { PocketsphinxConfig } from './pocketsphinx.config.js'

/** Seconds of silence added after the audio: `asr` names an utterance's words only once a pause ends it. */
const TRAILING_SILENCE = 1.5

/** Most bytes of ffmpeg's answer kept: a lecture's words, with room; a runaway process is stopped. */
const MAX_OUTPUT = 16 * 1024 * 1024

/**
 * Offline speech recognition with Debian's ffmpeg, built with pocketsphinx (its `asr` filter), and the model of
 * `pocketsphinx-en-us`: one ffmpeg process per transcription, at about a fifth of real time on two cores.
 */
export class PocketsphinxTranscriber implements TranscriberPort {
  private readonly ffmpeg: string | null

  constructor(
    private readonly config: PocketsphinxConfig,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.ffmpeg = findMediaBinary('ffmpeg', env)?.path ?? null
  }

  private get engine(): string {
    return `pocketsphinx ${this.config.language}`
  }

  async status(): Promise<TranscriberStatus> {
    const missing = (['hmm', 'dict', 'lm'] as const).find((key) => !existsSync(this.config[key]))
    if (missing) {
      return {
        ready: false,
        engine: this.engine,
        reason: `no model at ${this.config[missing]} (transcriber-pocketsphinx.${missing}): apt-get install pocketsphinx-en-us`,
      }
    }
    if (!this.ffmpeg || !(await this.hasAsr(this.ffmpeg))) {
      return {
        ready: false,
        engine: this.engine,
        reason: `${this.ffmpeg ?? 'ffmpeg'} has no "asr" filter (it needs ffmpeg built with pocketsphinx): apt-get install ffmpeg, or set FFMPEG_PATH`,
      }
    }
    return { ready: true, engine: this.engine, languages: [this.config.language] }
  }

  async transcribe(wav: string, options: { language: string; signal?: AbortSignal }): Promise<Transcript> {
    if (options.language !== this.config.language) {
      throw new Error(`${this.engine} transcribes ${this.config.language} only, not ${options.language}`)
    }
    const status = await this.status()
    if (!status.ready) throw new Error(`${this.engine}: ${status.reason}`)
    const { hmm, dict, lm, silence_db, silence_seconds } = this.config
    const graph = [
      `apad=pad_dur=${TRAILING_SILENCE}`,
      `silencedetect=noise=${silence_db}dB:duration=${silence_seconds}`,
      `asr=hmm=${hmm}:dict=${dict}:lm=${lm}`,
      'ametadata=mode=print:file=-',
    ].join(',')
    const printed = await run(
      this.ffmpeg!,
      ['-hide_banner', '-nostdin', '-loglevel', 'error', '-i', wav, '-af', graph, '-f', 'null', '-'],
      options.signal,
    )
    return { engine: this.engine, language: this.config.language, segments: segmentsOf(printed) }
  }

  private async hasAsr(ffmpeg: string): Promise<boolean> {
    try {
      return /Filter asr/.test(await run(ffmpeg, ['-hide_banner', '-h', 'filter=asr']))
    } catch {
      return false
    }
  }
}

/** Runs `command`, answering its standard output; rejects with its last error lines when it fails. */
function run(command: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], signal })
    const out: Buffer[] = []
    let size = 0
    let errors = ''
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_OUTPUT) child.kill('SIGKILL')
      else out.push(chunk)
    })
    child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString('utf8')).slice(-2000)))
    child.on('error', reject)
    child.on('close', (code, killed) => {
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'))
      const why = errors.trim().split('\n').slice(-3).join(' ') || (killed ? `stopped by ${killed}` : `exit ${code}`)
      reject(new Error(`${command} failed: ${why}`))
    })
  })
}
