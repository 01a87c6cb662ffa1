import { pino } from 'pino'
import type { Logger } from '../../src/kernel/index.js'

/** One line a recording logger kept, parsed. */
export interface LogLine {
  level: number
  msg: string
  [field: string]: unknown
}

/** A logger keeping its lines (info and above), for the test to read. */
export function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = []
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) })
  return { logger, lines }
}
