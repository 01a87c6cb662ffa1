import { UniqueConstraintViolationException } from '@mikro-orm/core'
import { HttpError, type HttpContext, internalError } from '../../src/kernel/index.js'
import type { FileView } from './files.types.js'

/** The permission of the endpoints behind upload links (docs/authorization.md). */
export const UPLOAD_PERMISSION =
  'public: the upload token is the credential (signed, expiring, bound to a user and a directory)'

/** The JSON error of the upload endpoints (json, tus). */
export interface UploadErrorBody {
  error: { code: number; message: string; fields?: Record<string, string> }
}

/**
 * What anything thrown by an upload endpoint answers as. Unexpected errors are logged without
 * the query (the token is a credential) and never show a stack.
 */
export function asUploadError(c: HttpContext, error: unknown): HttpError {
  if (error instanceof HttpError) return error
  if (error instanceof UniqueConstraintViolationException) {
    return new HttpError(412, 'A value that must be unique is already used; retry with another one.')
  }
  c.log.error(
    { err: error, id: c.requestId, method: c.req.method, path: (c.req.url ?? '').split('?')[0] },
    'upload failed',
  )
  return internalError(c.requestId)
}

/** `{"error": {"code", "message", "fields"?}}`: a 412 also lists its fields in the message, for plain displays. */
export function uploadErrorBody(error: HttpError): UploadErrorBody {
  const fields = Object.entries(error.fields)
  const message = fields.length
    ? `${error.message} ${fields.map(([name, text]) => `${name}: ${text}`).join('; ')}`
    : error.message
  return { error: { code: error.status, message, ...(fields.length ? { fields: error.fields } : {}) } }
}

/** `{"result": {"slug", "name", "size", "href"}}`: the file an upload became. */
export const uploadResult = (c: HttpContext, file: FileView) => ({
  result: { slug: file.slug, name: file.name, size: file.size, href: c.links.url('file', file.slug) },
})
