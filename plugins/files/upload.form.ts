import type { FilesDeps } from './files.deps.js'
import { type Form, type HttpContext, invalid } from '../../src/kernel/index.js'
import { readPiece, receivePiece } from './chunked-upload.service.js'
import { safeFileName } from './file-name.js'
import type { FileView } from './files.types.js'
import type { Uploader } from './files.types.js'
import { FILE_FIELD, type ReceivedBytes, commitFile, discard, receiveBytes } from './upload.service.js'

/** The multipart fields that carry the file (API-DECISIONS: Files and encoding). */
export const FILE_FIELDS: ReadonlySet<string> = new Set(['path', 'file', 'file[path]'])

/** An upload request once its body is read: the fields, and the file part if one came. */
export interface UploadBody {
  form: Form
  /** The file part, already streamed into storage (no row yet). */
  received?: ReceivedBytes
  /** The file part's client-side name, as sent. */
  filename?: string
  /** When the body started to be read (epoch ms): the upload's start, for its duration. */
  startedAt: number
}

/**
 * Reads an upload body, streaming the first file part into storage as it arrives (see
 * `receiveBytes`) and discarding any other. `beforeFile` runs when the file part starts
 * (permission checks that need no fields). If the body fails after the file was stored,
 * the bytes are removed.
 */
export async function readUploadBody(
  deps: FilesDeps,
  c: HttpContext,
  uploader: Uploader,
  beforeFile: () => void = () => undefined,
): Promise<UploadBody> {
  const body: Partial<UploadBody> = { startedAt: Date.now() }
  let receiving: Promise<ReceivedBytes> | undefined
  try {
    body.form = await c.form(
      async (part) => {
        if (!FILE_FIELDS.has(part.field) || body.received || body.filename !== undefined) {
          part.stream.resume()
          return
        }
        beforeFile()
        body.filename = part.filename
        receiving = receiveBytes(deps, c.em, uploader, part.stream)
        body.received = await receiving
      },
      { maxFiles: 4 },
    )
  } catch (error) {
    // The form fails as soon as the body does (cut off or malformed after the file part, one
    // file part too many), maybe while the file part is still being stored: wait for it, so
    // its bytes are removed now rather than left in storage with no row.
    await discard(deps, c.em, body.received ?? (await receiving?.catch(() => undefined)))
    throw error
  }
  return body as UploadBody
}

/** What an upload answers: the progress of a piece, or the new file. */
export type UploadOutcome =
  { done: false; progress: { chunk: number; chunks: number; bytes: number } } | { done: true; file: FileView }

/**
 * Turns a read upload body into a file, or into one more piece of a chunked upload, in
 * `directoryId` (null: the root). The name is the `name` field when sent (chunking browser
 * libraries send pieces named `blob`), else the part's file name; made harmless either way.
 * A file made is counted in the upload metrics.
 */
export async function storeUpload(
  deps: FilesDeps,
  c: HttpContext,
  uploader: Uploader,
  body: UploadBody,
  directoryId: number | null,
): Promise<UploadOutcome> {
  const { config, metrics } = deps
  const { form, received } = body
  try {
    if (!received) {
      throw invalid({ [FILE_FIELD]: 'send the file as the multipart file part "path" (or "file", "file[path]")' })
    }
    const piece = readPiece(form, config.max_chunks)
    const sent = typeof form.name === 'string' && form.name.trim() ? form.name : (body.filename ?? '')
    const name = safeFileName(sent)
    if (piece && piece.chunks > 1) {
      const outcome = await receivePiece(deps, c.em, {
        uploader,
        name,
        directoryId,
        piece,
        received,
        startedAt: body.startedAt,
        guardSeconds: config.pending_ttl,
        maxBytes: config.max_file_size > 0 ? config.max_file_size : Infinity,
      })
      if (outcome.done) metrics.uploaded('chunked', outcome.file.size, outcome.startedAt)
      return outcome
    }
    const file = await commitFile(deps, c.em, { uploader, directoryId, name, received })
    metrics.uploaded('multipart', file.size, body.startedAt)
    return { done: true, file }
  } catch (error) {
    await discard(deps, c.em, received)
    throw error
  }
}
