import type { Logger } from '../kernel/index.js'

/**
 * The last resort of a long-running process (`serve`, `worker`). A request's own failure is
 * answered 500 by the pipeline and the server goes on; what escapes every handler
 * (an exception thrown from a callback, a rejected promise nobody awaited) leaves the process
 * in a state nobody knows, so it is logged with its stack and the process exits non-zero:
 * its supervisor (systemd, the container runtime) starts a clean one. Never a silent hang.
 */
export function guardProcess(log: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  const fatal =
    (kind: 'uncaughtException' | 'unhandledRejection') =>
    (error: unknown): void => {
      log.fatal({ err: error, kind }, `${kind}: exiting so that the supervisor restarts mediactl`)
      exit(1)
    }
  process.on('uncaughtException', fatal('uncaughtException'))
  process.on('unhandledRejection', fatal('unhandledRejection'))
}

/**
 * The one signal handler of a long-running process (`serve`, its HTTP processes, `worker`):
 * the first SIGTERM or SIGINT logs `stopping` and runs `stop` (a graceful stop); a second one
 * of either is ignored while it runs, rather than killing the process mid-way. Resolves once
 * `stop` is done. Install it before announcing readiness: whoever waits for that line may
 * signal at once.
 */
export function stopOnSignal(stop: () => Promise<void>, log?: Pick<Logger, 'info'>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let stopping: Promise<void> | undefined
    const onSignal = (signal: NodeJS.Signals): void => {
      if (stopping) return
      log?.info({ signal }, 'stopping')
      stopping = stop().then(resolve, reject)
    }
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
  })
}
