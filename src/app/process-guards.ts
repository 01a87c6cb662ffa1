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
