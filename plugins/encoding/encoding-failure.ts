import { PermanentJobError } from '../../src/kernel/index.js'

/**
 * A failure that running the job again cannot mend (the file is not readable media, the
 * encoder refused it or ran out of time, the renditions do not fit the quotas): the file
 * is `failed` at once, with this message as `encoding_error`.
 */
export class MediaFailure extends PermanentJobError {
  override name = 'MediaFailure'
}

/** The file was deleted while it was being encoded: nothing to record, nothing to fail. */
export class FileGone extends Error {
  override name = 'FileGone'
  constructor() {
    super('the file was deleted during its encoding')
  }
}

/** What `encoding_error` says of a file that is not media the encoder can read. */
export const UNREADABLE = 'not a media file the encoder can read: it is corrupt, truncated or in an unsupported format'

const MAX_REASON = 1000

/**
 * A failure's message as `encoding_error` shows it: local paths of the run's work folder
 * taken out (they mean nothing to a client and tell about the server), one line, bounded.
 */
export function reasonOf(error: unknown, workDir?: string): string {
  let message = error instanceof Error ? error.message : String(error)
  if (workDir) message = message.replaceAll(`${workDir}/`, '').replaceAll(workDir, '')
  return message.replace(/\s+/g, ' ').trim().slice(0, MAX_REASON) || 'unknown error'
}
