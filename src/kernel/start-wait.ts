import { UserError } from './errors.js'
import type { Logger } from './log.js'
import { type StartDependency, checkOutcome } from './readiness.js'

/**
 * Exit code of a process that gave up waiting for a dependency (sysexits' EX_UNAVAILABLE): a
 * supervisor may start it again later (systemd's `Restart=on-failure`, a container's restart policy).
 */
export const EXIT_UNAVAILABLE = 69

/** A dependency did not answer within its wait: what it is, the setting, what to do. */
export class DependencyUnavailableError extends UserError {
  override name = 'DependencyUnavailableError'
  readonly exitCode = EXIT_UNAVAILABLE
  constructor(
    readonly dependency: string,
    dependencyWait: { seconds: number; setting: string; outcome: string },
  ) {
    super(
      `${dependency} did not answer within ${dependencyWait.seconds} s (${dependencyWait.setting}; last check: ${dependencyWait.outcome})`,
      {
        hint: `start it or check its address, then start again; raise ${dependencyWait.setting} to wait longer`,
      },
    )
  }
}

/**
 * Between two checks: 250 ms doubling to 2 s, each drawn between half and all of it (jitter, so
 * that processes spread): a dependency back is seen within 2 s, for a check a second at most.
 */
const FIRST_DELAY_MS = 250
const LAST_DELAY_MS = 2000

export interface StartWaitOptions {
  log: Pick<Logger, 'info' | 'warn'>
  /** Draws the jitter (tests pass a fixed one). */
  random?: () => number
}

/**
 * Waits until every dependency answers its check, each retried with capped exponential
 * backoff and jitter within its own wait. Logs one line when a dependency starts being waited
 * for and one when it answers (never one per attempt); rejects with a DependencyUnavailableError
 * for the first one whose wait runs out.
 */
export async function waitForDependencies(
  dependencies: readonly StartDependency[],
  options: StartWaitOptions,
): Promise<void> {
  await Promise.all(dependencies.map((dependency) => waitForOne(dependency, options)))
}

async function waitForOne(dependency: StartDependency, options: StartWaitOptions): Promise<void> {
  const { log, random = Math.random } = options
  const started = Date.now()
  const deadline = started + dependency.waitSeconds * 1000
  let delay = FIRST_DELAY_MS
  let waiting = false
  for (;;) {
    let unfixable: Error | undefined
    const outcome = await checkOutcome(dependency.check, (error) => (unfixable = dependency.unfixable?.(error)))
    if (unfixable) throw unfixable
    if (outcome === 'ok') {
      if (waiting)
        log.info({ dependency: dependency.name, waited_ms: Date.now() - started }, 'dependency answers; starting')
      return
    }
    const left = deadline - Date.now()
    if (left <= 0) {
      throw new DependencyUnavailableError(dependency.name, {
        seconds: dependency.waitSeconds,
        setting: dependency.setting,
        outcome,
      })
    }
    if (!waiting) {
      waiting = true
      log.warn(
        { dependency: dependency.name, outcome, wait_s: dependency.waitSeconds, setting: dependency.setting },
        'dependency unreachable while starting; waiting for it',
      )
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, delay * (0.5 + random() / 2))))
    delay = Math.min(delay * 2, LAST_DELAY_MS)
  }
}
