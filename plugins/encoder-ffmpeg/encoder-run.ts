import type { Binaries } from './ffmpeg-binaries.js'
import { runProcess } from './ffmpeg-process.js'
import type { ProgressTracker } from './progress-tracker.js'

export type { Binaries } from './ffmpeg-binaries.js'

/** Arguments every ffmpeg run starts with: quiet but for errors, progress on stdout, never overwrite, never read stdin. */
const FFMPEG_PREFIX = ['-hide_banner', '-nostdin', '-v', 'error', '-nostats', '-progress', 'pipe:1', '-n']

/** Where one step's progress goes: the tracker, the step's name, and the media seconds that make it complete. */
export interface StepProgress {
  tracker: ProgressTracker
  step: string
  duration: number | null
}

/**
 * One run of the encoder (an encoding and all its steps, a snapshot extraction, a logo
 * insertion): the processes it starts share one deadline and one abort signal, and run in
 * its work folder.
 */
export class EncoderRun {
  private readonly deadline: number

  constructor(
    private readonly binaries: Binaries,
    /** Seconds the whole run may take. */
    private readonly timeLimit: number,
    readonly signal: AbortSignal | undefined,
    /** Working directory of the processes. */
    readonly cwd?: string,
  ) {
    this.deadline = Date.now() + timeLimit * 1000
  }

  /** Runs ffmpeg with `args` (after the common prefix), reporting `-progress` to `progress`. */
  async ffmpeg(args: readonly string[], progress?: StepProgress): Promise<void> {
    const duration = progress?.duration
    await runProcess(this.binaries.ffmpeg.path, [...FFMPEG_PREFIX, ...args], {
      env: this.binaries.ffmpeg.env,
      timeLimitMs: this.deadline - Date.now(),
      limitName: `the time limit of ${this.timeLimit} s (encoder-ffmpeg.time_limit)`,
      signal: this.signal,
      cwd: this.cwd,
      onTime:
        progress && duration ? (seconds) => progress.tracker.update(progress.step, seconds / duration) : undefined,
    })
    progress?.tracker.update(progress.step, 1)
  }

  /** Runs ffprobe and parses its JSON answer (`-of json` must be among `args`). */
  async ffprobe(args: readonly string[]): Promise<unknown> {
    const out = await runProcess(this.binaries.ffprobe.path, args, {
      env: this.binaries.ffprobe.env,
      timeLimitMs: this.deadline - Date.now(),
      limitName: `the time limit of ${this.timeLimit} s`,
      signal: this.signal,
      cwd: this.cwd,
      captureStdout: true,
    })
    return JSON.parse(out) as unknown
  }
}
