import { type JobContext, transaction } from '../../src/kernel/index.js'
import { setEncodingState } from '../files/index.js'
import type { EncodingDeps } from './encoding.deps.js'

/** Most often a run's progress is written to the file row, in milliseconds. */
const WRITE_EVERY_MS = 500

/**
 * A run's progress, shown on the file (`encoding_progress`) and on the job. Whole percents,
 * never lower than already shown; the encoder reports many times a second, so the file row is
 * written at most every half second, one write at a time, in the background.
 */
export class EncodingProgress {
  private shown = 0
  private written = 0
  private lastWrite = 0
  private writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly deps: EncodingDeps,
    private readonly fileId: number,
    private readonly job: JobContext,
  ) {}

  /** Records `percent` (from an encoder callback: never waits). */
  report(percent: number): void {
    const value = Math.min(100, Math.max(0, Math.floor(percent)))
    if (value <= this.shown) return
    this.shown = value
    void this.job.progress(value)
    if (Date.now() - this.lastWrite >= WRITE_EVERY_MS) this.write()
  }

  /** Records `percent` and waits until the file row shows it (between the steps of a run). */
  async reach(percent: number): Promise<void> {
    this.report(percent)
    this.write()
    await this.writing
  }

  private write(): void {
    if (this.shown <= this.written) return
    const value = this.shown
    this.written = value
    this.lastWrite = Date.now()
    this.writing = this.writing
      .then(() =>
        // One transaction: what announces the progress (webhooks) commits with it, or not at all.
        transaction(this.deps.em(), async (tx) => {
          await setEncodingState(tx, this.fileId, { progress: value })
          await this.deps.emit('file.encoding_progress', { em: tx, fileId: this.fileId, progress: value })
        }),
      )
      .catch((error: unknown) =>
        this.deps.log.warn({ err: error, file: this.fileId }, 'encoding progress not recorded'),
      )
  }

  /** Waits for the writes under way. */
  settled(): Promise<void> {
    return this.writing
  }
}
