import type { JobRow } from './jobs-data.js'
import { type Language, type MessageKey, message } from './messages/index.js'

/** The kinds and states the console names; others are shown as the API names them. */
const LABELS: Record<string, MessageKey> = {
  'encoding.encode': 'jobs.kind.encoding.encode',
  'encoding.insertlogo': 'jobs.kind.encoding.insertlogo',
  'webhooks.deliver': 'jobs.kind.webhooks.deliver',
  waiting: 'jobs.state.waiting',
  running: 'jobs.state.running',
  succeeded: 'jobs.state.succeeded',
  failed: 'jobs.state.failed',
  cancelled: 'jobs.state.cancelled',
}

/** A job kind (`Encoding`) or state (`Failed`) for people. */
export function jobLabel(language: Language, value: string): string {
  const key = Object.prototype.hasOwnProperty.call(LABELS, value) ? LABELS[value] : undefined
  return key ? message(language, key) : value
}

/** What a job is about, for people: its file's name, else its subject. */
export const jobName = (job: JobRow): string => job.file?.name ?? job.subject
