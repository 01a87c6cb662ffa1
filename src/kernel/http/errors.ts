import { STATUS_CODES } from 'node:http'

/** Field name mapped to what is wrong with it, for 412 answers. */
export type FieldErrors = Record<string, string>

/**
 * An error that becomes an HTTP answer with the XML error body. Throw it from any handler;
 * anything else thrown becomes a 500 whose body never carries the stack.
 */
export class HttpError extends Error {
  override name = 'HttpError'

  constructor(
    /** HTTP status to answer with. */
    readonly status: number,
    message?: string,
    /** Per-field problems (412). */
    readonly fields: FieldErrors = {},
    /** Extra response headers (for example a Digest challenge). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? STATUS_CODES[status] ?? 'Error')
  }
}

export const badRequest = (message: string): HttpError => new HttpError(400, message)
export const forbidden = (message = 'You may not do this.'): HttpError => new HttpError(403, message)
export const notFound = (what = 'Nothing at the requested address.'): HttpError => new HttpError(404, what)
/** 412 Erroneous Data with every failing field. */
export const invalid = (fields: FieldErrors, message = 'The submitted data is invalid.'): HttpError =>
  new HttpError(412, message, fields)
export const tooLarge = (message: string): HttpError => new HttpError(413, message)
/** 500 for a failure of ours: the request id finds the logged details, which the answer never shows. */
export const internalError = (requestId: string): HttpError =>
  new HttpError(500, `Internal error (request ${requestId}): the server log has the details.`)
