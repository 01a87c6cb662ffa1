import { destination as pinoDestination, pino, stdTimeFunctions, type Logger } from 'pino'

export type { Logger }

/**
 * The root logger: JSON lines on stdout (or the given destination, e.g. a file descriptor).
 * Written synchronously: no line is lost when the process dies, lines keep their order with
 * what the CLI prints, and the benchmark measured no cost worth buffering for.
 * Secrets never reach it: the Authorization header is not logged anywhere.
 */
export function createLogger(level: string, destination?: number | string): Logger {
  return pino(
    { level, base: { app: 'mediactl' }, timestamp: stdTimeFunctions.isoTime },
    pinoDestination({ dest: destination ?? 1, sync: true }),
  )
}
