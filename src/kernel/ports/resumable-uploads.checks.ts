import type { DataStore, Upload } from '@tus/server'
import { RESUMABLE_UPLOAD_ID } from './resumable-uploads.port.js'

/** Throws unless `id` is a resumable upload id (RESUMABLE_UPLOAD_ID): no id reaches outside a backend's area. */
export function checkResumableUploadId(id: string): void {
  if (!RESUMABLE_UPLOAD_ID.test(id)) throw new Error(`"${id}" is not a resumable upload id`)
}

/**
 * An Error for what a @tus/server data store threw about upload `id`: the stores throw
 * plain `{status_code, body}` objects for the protocol's answers.
 */
export function resumableUploadError(id: string, error: unknown): Error {
  if (error instanceof Error) return error
  const body = (error as { body?: string } | undefined)?.body?.trim()
  return new Error(`tus upload "${id}": ${body || String(error)}`)
}

/** The upload `id` of `store` once it has all its bytes (what `adopt` needs); throws otherwise. */
export async function finishedUpload(store: DataStore, id: string): Promise<Upload> {
  checkResumableUploadId(id)
  let upload: Upload
  try {
    upload = await store.getUpload(id)
  } catch (error) {
    throw resumableUploadError(id, error)
  }
  if (upload.size === undefined || upload.offset !== upload.size) {
    throw new Error(`tus upload "${id}" is not complete (${upload.offset} of ${upload.size ?? '?'} bytes)`)
  }
  return upload
}
