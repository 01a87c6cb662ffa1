import { basename } from 'node:path'

/** A run went over its time limit: ffmpeg was killed. */
export class EncoderTimeoutError extends Error {
  /** `limit` names it: `the time limit of 60 s (encoder-ffmpeg.time_limit)`. */
  constructor(limit: string) {
    super(`ffmpeg stopped: over ${limit}`)
    this.name = 'EncoderTimeoutError'
  }
}

/** ffmpeg or ffprobe exited with an error; the message ends with the last lines it wrote. */
export class FfmpegError extends Error {
  constructor(
    binary: string,
    /** Exit status, or null when it could not start or was stopped. */
    readonly exitCode: number | null,
    detail: string,
  ) {
    const lines = detail.trim().split('\n').slice(-5).join(' / ')
    super(`${basename(binary)} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${lines || 'no message'}`)
    this.name = 'FfmpegError'
  }
}

/** The input cannot be processed as asked (not a video, not an image, a refused format, a bad placement). */
export class EncoderInputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EncoderInputError'
  }
}
