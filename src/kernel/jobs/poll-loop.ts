/**
 * The consuming loop of a queue backend: runs `look` every `intervalMs` while `active()`,
 * at once on `wake()` (a job was queued or a run ended in this process), and right again
 * when a wake came during a look, so no wake is lost and two looks never overlap.
 */
export class PollLoop {
  private timer: NodeJS.Timeout | undefined
  private looking: Promise<void> | undefined
  private again = false

  constructor(
    private readonly look: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly active: () => boolean,
  ) {}

  /** Looks soon: now, unless a look is under way (then right after it). */
  wake(): void {
    if (!this.active()) return
    if (this.looking) {
      this.again = true
      return
    }
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.tick(), 0)
  }

  /** Schedules no further look; resolves once a look under way has ended. */
  halt(): Promise<void> {
    clearTimeout(this.timer)
    return this.looking ?? Promise.resolve()
  }

  private tick(): Promise<void> {
    if (this.looking) {
      this.again = true
      return this.looking
    }
    this.again = false
    this.looking = this.look().finally(() => {
      this.looking = undefined
      if (!this.active()) return
      clearTimeout(this.timer)
      this.timer = setTimeout(() => void this.tick(), this.again ? 0 : this.intervalMs)
      this.again = false
    })
    return this.looking
  }
}
