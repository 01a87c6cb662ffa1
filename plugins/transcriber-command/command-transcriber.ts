import { spawn } from 'node:child_process'
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import type { Transcript, TranscriberPort, TranscriberStatus } from '../../src/kernel/index.js'
import type { CommandConfig } from './command.config.js'
import { orderedSegments, segmentsOfJson, segmentsOfVtt } from './transcript-formats.js'

/** The executable `program` names: a path, or a name on PATH; null when there is none. */
function executable(program: string): string | null {
  const candidates = program.includes('/')
    ? [program]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((folder) => join(folder, program))
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // Not this one.
    }
  }
  return null
}

/**
 * An engine the operator installs and names by its command line (docs/captions.md has whisper.cpp's): mediactl gives it
 * a WAV and reads back the WebVTT or JSON it wrote.
 */
export class CommandTranscriber implements TranscriberPort {
  constructor(private readonly config: CommandConfig) {}

  async status(): Promise<TranscriberStatus> {
    const [program] = this.config.command
    const engine = this.config.engine
    if (!program) {
      return { ready: false, engine, reason: 'no command: set transcriber-command.command (docs/configuration.md)' }
    }
    if (!executable(program)) {
      return { ready: false, engine, reason: `${program} is not an executable file here (transcriber-command.command)` }
    }
    return { ready: true, engine, languages: this.config.languages }
  }

  async transcribe(wav: string, options: { language: string; signal?: AbortSignal }): Promise<Transcript> {
    if (!this.config.languages.includes(options.language)) {
      throw new Error(`${this.config.engine} transcribes ${this.config.languages.join(', ')}, not ${options.language}`)
    }
    const status = await this.status()
    if (!status.ready) throw new Error(`${this.config.engine}: ${status.reason}`)
    const dir = mkdtempSync(join(tmpdir(), 'mediactl-transcribe-'))
    try {
      const base = join(dir, 'transcript')
      const output = `${base}.${this.config.format}`
      const values: Record<string, string> = { input: wav, output, output_base: base, language: options.language }
      const [program, ...args] = this.config.command.map((part) =>
        part.replace(/\{(input|output_base|output|language)\}/g, (_, name: string) => values[name]!),
      )
      await run(program!, args, dir, this.config.timeout_seconds * 1000, options.signal)
      let written: string
      try {
        written = readFileSync(output, 'utf8')
      } catch {
        throw new Error(`${this.config.engine} wrote no ${output} (is {output} among its arguments?)`)
      }
      const segments = this.config.format === 'vtt' ? segmentsOfVtt(written) : segmentsOfJson(written)
      return { engine: this.config.engine, language: options.language, segments: orderedSegments(segments) }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Runs the engine in `cwd`; rejects with its last error lines when it fails, times out or is aborted. */
function run(program: string, args: string[], cwd: string, timeout: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      signal,
      timeout,
      killSignal: 'SIGKILL',
    })
    let errors = ''
    child.stderr.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString('utf8')).slice(-2000)))
    child.on('error', reject)
    child.on('close', (code, killed) => {
      if (code === 0) return resolve()
      const why = killed ? `stopped (${killed}) after ${timeout / 1000} s or when cancelled` : `exit ${code}`
      reject(new Error(`${program} failed, ${why}: ${errors.trim().split('\n').slice(-3).join(' ')}`))
    })
  })
}
