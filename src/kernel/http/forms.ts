import type { IncomingMessage } from 'node:http'
import type { Readable } from 'node:stream'
import busboy from 'busboy'
import { type FieldErrors, HttpError, badRequest, invalid, tooLarge } from './errors.js'
import { CONTROL_CHARACTERS } from './control-characters.js'

/** A parsed form: bracket notation (`permission[Media][edit]`) becomes nested values. */
export interface Form {
  [field: string]: FormValue
}
export type FormValue = string | string[] | Form

/** A file part of a multipart form, handed to the route's file handler as a stream. */
export interface FormFile {
  /** Form field name (for example `path` or `file[path]`). */
  field: string
  /** Client-side file name from the part's Content-Disposition; data, never a path. */
  filename: string
  /** Declared media type of the part (not trusted; content is probed). */
  mimeType: string
  /** The bytes; must be consumed (or resumed) by the handler. */
  stream: Readable
  /** The fields received before this part (multipart sends fields in order). */
  fieldsSoFar: Form
}

export interface FormLimits {
  /** Largest body accepted, in bytes, not counting file parts handled by `onFile`. */
  bodyLimit: number
  /** Most fields in one form. */
  maxFields: number
  /** Most file parts in one form. */
  maxFiles?: number
}

/** Splits `a[b][c]` into ['a', 'b', 'c']; `a[]` gives ['a', '']. */
function fieldPath(name: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(name)
  if (!match) return [name]
  const rest = [...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)
  return [match[1]!, ...rest]
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor'])

/** Every value of the plain fields sent more than once (`events=a&events=b`), by form. */
const repeats = new WeakMap<Form, Map<string, string[]>>()

/**
 * Every value of a plain field sent more than once, in order (undefined when it came once):
 * for the fields that take a list (`FieldReader.words`). The form itself keeps the last value,
 * as it does for every other field.
 */
export function repeatedValues(form: Form, field: string): readonly string[] | undefined {
  return repeats.get(form)?.get(field)
}

/** Sets a field into a form by its bracket path; a later value replaces an earlier one. */
export function setField(form: Form, name: string, value: string): void {
  const path = fieldPath(name)
  if (path.some((key) => FORBIDDEN_KEYS.has(key))) return
  const earlier = path.length === 1 ? form[path[0]!] : undefined
  if (typeof earlier === 'string') {
    const seen = repeats.get(form) ?? new Map<string, string[]>()
    repeats.set(form, seen)
    seen.set(path[0]!, [...(seen.get(path[0]!) ?? [earlier]), value])
  }
  let node: Form = form
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!
    if (path[i + 1] === '') {
      const current = node[key]
      node[key] = Array.isArray(current) ? [...current, value] : [value]
      return
    }
    const next = node[key]
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = Object.create(null) as Form
    node = node[key] as Form
  }
  node[path.at(-1)!] = value
}

/**
 * A NUL can be stored by no database (PostgreSQL refuses it in text, even to compare), and
 * a handler may hand a field to a query before any field rule runs: so a form holding one is
 * refused here, once for every route, before the handler sees it. The 412 names every field
 * that breaks the text fields' rule (control characters), as the field rules would.
 */
function refuseNul(fields: [string, string][]): void {
  if (!fields.some(([name, value]) => name.includes('\u0000') || value.includes('\u0000'))) return
  const errors: FieldErrors = {}
  for (const [name, value] of fields) {
    if (CONTROL_CHARACTERS.test(name) || CONTROL_CHARACTERS.test(value)) {
      errors[name.replace(new RegExp(CONTROL_CHARACTERS.source, 'g'), '')] = 'must not contain control characters'
    }
  }
  throw invalid(errors)
}

export function emptyForm(): Form {
  return Object.create(null) as Form
}

/** Builds a form from a query string (`URLSearchParams`). */
export function formFromQuery(search: string): Form {
  const form = emptyForm()
  const fields = [...new URLSearchParams(search)]
  refuseNul(fields)
  for (const [key, value] of fields) setField(form, key, value)
  return form
}

/**
 * Urlencoded bodies are small and bounded: read them whole and decode as UTF-8, so raw
 * UTF-8 bytes (as `curl -d` sends them) and percent-encoded ones both round-trip.
 */
function readUrlencoded(req: IncomingMessage, limits: FormLimits): Promise<Form> {
  return new Promise<Form>((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    let failed = false
    req.on('data', (chunk: Buffer) => {
      if (failed) return
      received += chunk.length
      if (received > limits.bodyLimit) {
        failed = true
        reject(tooLarge(`The request body is larger than ${limits.bodyLimit} bytes.`))
        return
      }
      chunks.push(chunk)
    })
    const interrupted = (): void => {
      if (failed) return
      failed = true
      reject(badRequest('The request body was interrupted.'))
    }
    req.on('aborted', interrupted)
    req.on('error', interrupted)
    req.on('close', () => {
      if (!req.complete) interrupted()
    })
    req.on('end', () => {
      if (failed) return
      const fields = [...new URLSearchParams(Buffer.concat(chunks).toString('utf8'))]
      if (fields.length > limits.maxFields) {
        reject(tooLarge(`A request may carry at most ${limits.maxFields} fields.`))
        return
      }
      const form = emptyForm()
      try {
        refuseNul(fields)
      } catch (error) {
        reject(error as Error)
        return
      }
      for (const [key, value] of fields) setField(form, key, value)
      resolve(form)
    })
  })
}

/**
 * Reads an `application/x-www-form-urlencoded` or `multipart/form-data` body, streaming.
 * File parts go to `onFile` (or are discarded when there is none); fields are bounded by
 * count and size and answer 413 beyond; a body with another content type answers 400.
 */
export function readForm(
  req: IncomingMessage,
  limits: FormLimits,
  onFile?: (file: FormFile) => Promise<void>,
): Promise<Form> {
  const form = emptyForm()
  // The client may be gone before the handler reads (authentication is awaited first): its
  // 'aborted' and 'close' have fired already and will not again, so nothing would settle.
  if (req.destroyed) return Promise.reject(badRequest('The request body was interrupted.'))
  const type = (req.headers['content-type'] ?? '').toLowerCase()
  const length = Number(req.headers['content-length'] ?? 0)
  const hasBody = length > 0 || req.headers['transfer-encoding'] !== undefined
  if (!hasBody) {
    req.resume()
    return Promise.resolve(form)
  }
  const isForm = type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')
  if (!isForm) {
    req.resume()
    return Promise.reject(
      badRequest('Send the request fields as application/x-www-form-urlencoded or multipart/form-data.'),
    )
  }
  if ((!onFile || !type.startsWith('multipart/')) && length > limits.bodyLimit) {
    req.resume()
    return Promise.reject(tooLarge(`The request body is larger than ${limits.bodyLimit} bytes.`))
  }
  if (type.startsWith('application/x-www-form-urlencoded')) return readUrlencoded(req, limits)

  return new Promise<Form>((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: {
          fields: limits.maxFields,
          fieldSize: limits.bodyLimit,
          files: onFile ? (limits.maxFiles ?? 4) : 16,
          parts: limits.maxFields + (limits.maxFiles ?? 16),
        },
      })
    } catch (error) {
      req.resume()
      reject(badRequest(`Malformed form body: ${(error as Error).message}.`))
      return
    }
    let failed: HttpError | undefined
    let fieldBytes = 0
    const fields: [string, string][] = []
    const pending: Promise<void>[] = []
    const fileStreams = new Set<Readable>()
    const fail = (error: HttpError): void => {
      if (failed) return
      failed = error
      req.unpipe(parser)
      req.resume()
      // A file part cut off (client gone, form refused) must fail its consumer, not leave it waiting.
      for (const stream of fileStreams) stream.destroy(error)
      reject(error)
    }
    // RFC 7578: every part has a name. busboy hands a nameless one on as `undefined`.
    const nameless = (): void => fail(badRequest('Malformed form body: a part has no name.'))
    parser.on('field', (name, value, info) => {
      if (typeof name !== 'string' || name === '') {
        nameless()
        return
      }
      fieldBytes += name.length + value.length
      if (info.valueTruncated || info.nameTruncated || fieldBytes > limits.bodyLimit) {
        fail(tooLarge(`The form fields are larger than ${limits.bodyLimit} bytes.`))
        return
      }
      fields.push([name, value])
      setField(form, name, value)
    })
    parser.on('file', (field, stream, info) => {
      // A part cut off by the end of the body fails its stream: with no listener that error
      // would end the process, so every part gets one before anything else happens to it.
      stream.on('error', () => undefined)
      if (typeof field !== 'string' || field === '') nameless()
      if (!failed) {
        try {
          // Refused before the part's bytes are stored anywhere.
          refuseNul(fields)
        } catch (error) {
          fail(error as HttpError)
        }
      }
      if (failed || !onFile) {
        stream.resume()
        return
      }
      fileStreams.add(stream)
      stream.once('end', () => fileStreams.delete(stream))
      const file: FormFile = {
        field,
        filename: info.filename ?? '',
        mimeType: info.mimeType,
        stream,
        fieldsSoFar: Object.assign(emptyForm(), form),
      }
      pending.push(
        onFile(file).catch((error: unknown) => {
          stream.resume()
          fail(error instanceof HttpError ? error : new HttpError(500, (error as Error).message))
        }),
      )
    })
    parser.on('fieldsLimit', () => fail(tooLarge(`A request may carry at most ${limits.maxFields} fields.`)))
    parser.on('partsLimit', () => fail(tooLarge('The form has too many parts.')))
    parser.on('filesLimit', () => fail(tooLarge('The form has too many file parts.')))
    parser.on('error', (error: Error) => fail(badRequest(`Malformed form body: ${error.message}.`)))
    parser.on('close', () => {
      if (failed) return
      Promise.all(pending).then(
        () => {
          if (failed) return
          try {
            refuseNul(fields)
          } catch (error) {
            reject(error as Error)
            return
          }
          resolve(form)
        },
        () => undefined,
      )
    })
    if (!onFile) {
      // Chunked bodies have no Content-Length: count what actually arrives.
      let received = 0
      req.on('data', (chunk: Buffer) => {
        received += chunk.length
        if (received > limits.bodyLimit) fail(tooLarge(`The request body is larger than ${limits.bodyLimit} bytes.`))
      })
    }
    const interrupted = (): void => fail(badRequest('The request body was interrupted.'))
    req.on('aborted', interrupted)
    req.on('error', interrupted)
    req.on('close', () => {
      if (req.complete === false) interrupted()
    })
    req.pipe(parser)
  })
}
