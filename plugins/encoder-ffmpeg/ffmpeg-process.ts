import { type ChildProcess, spawn } from 'node:child_process'
import { EncoderTimeoutError, FfmpegError } from './encoder.errors.js'

/** How one ffmpeg or ffprobe process runs. */
export interface ProcessOptions {
  /** Milliseconds the process may run; it is killed (SIGKILL) beyond, and the run rejects with EncoderTimeoutError. */
  timeLimitMs: number
  /** The limit as the error names it: `the time limit of 60 s (encoder-ffmpeg.time_limit)`. */
  limitName: string
  /** Aborting kills the process (SIGKILL) and rejects with the signal's reason. */
  signal?: AbortSignal
  /** Working directory: where a stray file of ffmpeg would land (a run's work folder). */
  cwd?: string
  /** Variables set over this process's environment. */
  env?: Record<string, string>
  /** Keep stdout and resolve with it (ffprobe's JSON); otherwise stdout is read as `-progress` lines. */
  captureStdout?: boolean
  /** With `-progress pipe:1`: the output time reached, in seconds, each time ffmpeg reports it (about twice a second). */
  onTime?(seconds: number): void
}

/** Most bytes of stderr kept for the error message: the last lines say what went wrong. */
const STDERR_TAIL = 4096
/** Most bytes of stdout kept (ffprobe's JSON of a file with many streams stays far below). */
const STDOUT_MAX = 16 * 1024 * 1024

/** Every process running, so that they die with this one rather than run on unowned. */
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** The processes running now (tests check that none is left behind). */
export function runningProcesses(): number {
  return running.size
}

/** Output time of one `-progress` line (`out_time_us=1500000`, older builds `out_time_ms=`, both microseconds), or null. */
export function progressSeconds(line: string): number | null {
  const match = /^out_time_(?:us|ms)=(\d+)\s*$/.exec(line)
  return match ? Number(match[1]) / 1e6 : null
}

/**
 * Runs a binary with arguments (never through a shell: no argument is ever interpreted),
 * enforcing the time limit and the abort signal with SIGKILL: ffmpeg stuck in a corrupt
 * file does not answer gentler signals, and its partial outputs are removed by the caller
 * anyway. Resolves with stdout (when captured) once it exits with status 0.
 */
export function runProcess(binary: string, args: readonly string[], options: ProcessOptions): Promise<string> {
  const { signal } = options
  if (signal?.aborted) return Promise.reject(signal.reason)
  if (options.timeLimitMs <= 0) return Promise.reject(new EncoderTimeoutError(options.limitName))
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      cwd: options.cwd,
      env: options.env && Object.keys(options.env).length ? { ...process.env, ...options.env } : process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    })
    running.add(child)
    let stopped: unknown = null
    const stop = (reason: unknown): void => {
      if (stopped) return
      stopped = reason
      child.kill('SIGKILL')
    }
    const timer = setTimeout(() => stop(new EncoderTimeoutError(options.limitName)), options.timeLimitMs)
    const onAbort = (): void => stop(signal!.reason)
    signal?.addEventListener('abort', onAbort, { once: true })

    let stderr = ''
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL)
    })
    const stdout: string[] = []
    let stdoutBytes = 0
    let pending = ''
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      if (options.captureStdout) {
        stdoutBytes += chunk.length
        if (stdoutBytes > STDOUT_MAX) stop(new FfmpegError(binary, null, 'output too large'))
        else stdout.push(chunk)
        return
      }
      const lines = (pending + chunk).split('\n')
      pending = lines.pop()!
      for (const line of lines) {
        const seconds = progressSeconds(line)
        if (seconds !== null) options.onTime?.(seconds)
      }
    })

    const finish = (error: unknown): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      running.delete(child)
      if (error) reject(error)
      else resolve(stdout.join(''))
    }
    child.once('error', (error) => finish(stopped ?? new FfmpegError(binary, null, error.message)))
    child.once('close', (code) => {
      if (stopped) finish(stopped)
      else if (code !== 0) finish(new FfmpegError(binary, code, stderr))
      else finish(null)
    })
  })
}
