/** How long one dependency check may take before it counts as failing. */
const CHECK_TIMEOUT_MS = 2000
/** How long an answer is reused: probes polled every second by several monitors cost one round of checks. */
const REUSE_MS = 1000

/** A dependency a starting process waits for (start-wait.ts): how to check it, how long to wait, by which setting. */
export interface StartDependency {
  name: string
  check: () => Promise<unknown>
  /** Seconds to wait for it at most. */
  waitSeconds: number
  /** The setting that says how long (`database.connect_wait`), named in the log and the error. */
  setting: string
  /** What a failed check said that no waiting fixes (a missing database): the error to stop with at once. */
  unfixable?: (error: unknown) => Error | undefined
}

/** The readiness of the process: each dependency `ok`, or why not (never a secret: no URL, no message). */
export interface ReadinessReport {
  ready: boolean
  checks: Record<string, string>
}

/**
 * The dependencies the process needs to serve (`GET /ready`): the database (the kernel's),
 * and what plugins declare with `ctx.ready` (Redis, storage). Each check runs with a time
 * limit, all at once; answers are reused for a second.
 */
export class Readiness {
  private readonly checks: { name: string; check: () => Promise<unknown> }[] = []
  private readonly waits: StartDependency[] = []
  private last: { at: number; report: ReadinessReport } | undefined
  private running: Promise<ReadinessReport> | undefined

  /**
   * Declares a dependency; `check` resolves when it answers, throws (or hangs) when not. With
   * `startWait`, a starting `serve` or `worker` waits for it that long (start-wait.ts).
   */
  add(
    name: string,
    check: () => Promise<unknown>,
    startWait?: { seconds: number; setting: string; unfixable?: (error: unknown) => Error | undefined },
  ): void {
    this.checks.push({ name, check })
    if (startWait) this.waits.push({ name, check, waitSeconds: startWait.seconds, ...startWait })
  }

  /** The dependencies a starting process waits for, with their waits. */
  get startDependencies(): readonly StartDependency[] {
    return this.waits
  }

  /** The declared dependencies, in order: `mediactl doctor` checks each with messages of its own. */
  get dependencies(): readonly { name: string; check: () => Promise<unknown> }[] {
    return this.checks
  }

  /** Checks every dependency (or answers the report of the last second). */
  report(): Promise<ReadinessReport> {
    if (this.last && Date.now() - this.last.at < REUSE_MS) return Promise.resolve(this.last.report)
    this.running ??= this.checkAll().finally(() => (this.running = undefined))
    return this.running
  }

  private async checkAll(): Promise<ReadinessReport> {
    const results = await Promise.all(this.checks.map(({ check }) => checkOutcome(check)))
    const checks = Object.fromEntries(this.checks.map(({ name }, i) => [name, results[i]!]))
    const report = { ready: results.every((result) => result === 'ok'), checks }
    this.last = { at: Date.now(), report }
    return report
  }
}

/** `ok`, `timed out`, or the error's code (`ECONNREFUSED`): what failed, without messages that may carry addresses. */
export async function checkOutcome(check: () => Promise<unknown>, onError?: (error: unknown) => void): Promise<string> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timed out'), CHECK_TIMEOUT_MS)))
  try {
    return await Promise.race([check().then(() => 'ok'), timeout])
  } catch (error) {
    onError?.(error)
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code) ? `failing (${code})` : 'failing'
  } finally {
    clearTimeout(timer)
  }
}
