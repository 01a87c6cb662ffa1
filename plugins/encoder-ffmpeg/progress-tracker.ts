/**
 * Turns the progress of the steps of one run (each a fraction 0 to 1, weighted by its
 * expected cost) into one percentage for the caller: monotonic, in tenths, reported only
 * when it moves, and 100 only once `complete` says the outputs are in place.
 */
export class ProgressTracker {
  private readonly fractions = new Map<string, number>()
  private readonly total: number
  private reported = -1

  constructor(
    private readonly report: (percent: number) => void,
    /** Each step's name and relative cost (for a video: the encoding far more than the HLS cut). */
    private readonly weights: Record<string, number>,
  ) {
    this.total = Object.values(weights).reduce((sum, weight) => sum + weight, 0) || 1
  }

  /** The step `name` is `fraction` (0 to 1) done; out of range values are clamped. */
  update(name: string, fraction: number): void {
    if (!(name in this.weights) || !Number.isFinite(fraction)) return
    const clamped = Math.min(1, Math.max(0, fraction))
    if (clamped <= (this.fractions.get(name) ?? 0)) return
    this.fractions.set(name, clamped)
    let done = 0
    for (const [step, value] of this.fractions) done += this.weights[step]! * value
    // 100 is kept for `complete`: every step may be done before the outputs are moved into place.
    this.emit(Math.min(99.9, Math.floor((done / this.total) * 1000) / 10))
  }

  /** Reports 0 (the run started). */
  start(): void {
    this.emit(0)
  }

  /** Reports 100: the outputs are complete. */
  complete(): void {
    this.emit(100)
  }

  private emit(percent: number): void {
    if (percent <= this.reported) return
    this.reported = percent
    this.report(percent)
  }
}
