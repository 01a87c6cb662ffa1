import type { FilesDeps } from './files.deps.js'
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { DataStore, EVENTS, Metadata, Server, type Upload } from '@tus/server'
import type { Readable } from 'node:stream'
import {
  HttpError,
  type HttpContext,
  RESUMABLE_UPLOAD_ID,
  type Reply,
  type ResumableUploadsPort,
  type Router,
  badRequest,
  notFound,
  reply,
} from '../../src/kernel/index.js'
import { safeFileName } from './file-name.js'
import { PortLocker } from './tus-locker.js'
import { UPLOAD_PERMISSION, asUploadError, uploadErrorBody, uploadResult } from './upload-answers.js'
import { finishTusUpload, releaseReservation, reservationOf, reserve, touchReservation } from './tus.service.js'
import { type UploadTarget, tokenOf } from './upload-token.js'

/** The tus protocol version spoken (@tus/server's). */
const TUS_RESUMABLE = '1.0.0'
/** The ids this endpoint makes (32 hex digits), the only ones its URLs may name. */
const UPLOAD_ID = /^[0-9a-f]{32}$/
/** The path of an upload, at the end of a request URL (behind any base path). */
const UPLOAD_PATH = /\/upload\/tus\/([^/]+)\/?$/
/** Headers a browser client may read: the file an upload became. */
const EXPOSED = ['Upload-File']

/** What one request to the tus endpoint carries into @tus/server's hooks. */
interface TusRequest {
  c: HttpContext
  target: UploadTarget
  port: ResumableUploadsPort
  /** The id of the upload a POST creates (reserved before @tus/server names it). */
  created?: { id: string; name: string }
}

/** Thrown from a hook: @tus/server answers it as is. */
class TusAnswer extends Error {
  constructor(
    readonly status_code: number,
    readonly body: string,
  ) {
    super(body)
  }
}

/**
 * Has `res.end(callback)` call its callback once the connection closes too. @tus/server sends
 * its answer through srvx, which ends the response with `res.end(callback)` and waits for that
 * callback: node calls it on 'finish' only, which never comes to a response whose client is
 * gone (a cut PATCH), so `server.handle` would never settle and the request's follow-up
 * (releasing a failed creation's reservation, marking the upload active) would never run.
 */
function endEvenWhenGone(res: ServerResponse): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse
  res.end = ((...args: unknown[]) => {
    const index = args.findIndex((arg) => typeof arg === 'function')
    if (index === -1) return end(...args)
    const callback = args[index] as () => void
    let called = false
    const once = (): void => {
      if (called) return
      called = true
      callback()
    }
    args[index] = once
    res.once('close', once)
    // Already gone: 'close' was emitted, or is about to be.
    if (res.destroyed) process.nextTick(once)
    return end(...args)
  }) as ServerResponse['end']
}

/**
 * The port's data store, with termination also freeing the upload's reservation: inside
 * @tus/server's DELETE (under its lock, once the bytes are gone, before the answer).
 */
class ReservingStore extends DataStore {
  constructor(
    private readonly inner: DataStore,
    private readonly release: (uploadId: string) => Promise<void>,
  ) {
    super()
    this.extensions = inner.extensions
  }

  override create(upload: Upload): Promise<Upload> {
    return this.inner.create(upload)
  }

  override write(source: Readable, id: string, offset: number): Promise<number> {
    return this.inner.write(source, id, offset)
  }

  override getUpload(id: string): Promise<Upload> {
    return this.inner.getUpload(id)
  }

  override async remove(id: string): Promise<void> {
    await this.inner.remove(id)
    await this.release(id)
  }

  override getExpiration(): number {
    return this.inner.getExpiration()
  }
}

/**
 * The tus endpoint behind upload links (docs/api/files.md, Resumable uploads): @tus/server speaks
 * the protocol over the `resumableUploads` port's data store; this class checks the token
 * on every request, binds each upload to its token's user, reserves its length against the
 * quotas at creation, and turns a finished upload into a file like every upload path.
 */
class TusEndpoint {
  private server: Server | undefined
  /** The request each Node request belongs to, for @tus/server's hooks (which see a web Request). */
  private readonly requests = new WeakMap<IncomingMessage, TusRequest>()
  /** When each upload's reservation was last marked active, for uploads receiving bytes now. */
  private readonly touched = new Map<string, number>()

  constructor(private readonly deps: FilesDeps) {}

  async handle(c: HttpContext): Promise<Reply> {
    try {
      const port = this.deps.resumableUploads
      if (!port) {
        throw new HttpError(
          501,
          'Resumable uploads (tus) are not available with this storage backend: use the json or html upload link.',
        )
      }
      const server = this.serverFor(port)
      const method = c.req.method ?? 'GET'
      // A browser's preflight carries no token header; it learns the protocol's options only.
      if (method === 'OPTIONS') return await this.pass(server, c)
      const id = c.params.id
      if (method === 'GET' || (method === 'POST' && id !== undefined)) {
        throw new HttpError(
          405,
          'Create a tus upload with POST /upload/tus, then send it with PATCH to its address.',
          {},
          {
            Allow: id === undefined ? 'OPTIONS, POST' : 'OPTIONS, HEAD, PATCH, DELETE',
          },
        )
      }
      const target = await this.deps.uploadLinks.check(c)
      const request: TusRequest = { c, target, port }
      if (id === undefined) {
        if (method === 'POST') request.created = await this.create(c, target)
      } else {
        if (!UPLOAD_ID.test(id) || !(await reservationOf(c.em, id, target.uploader.id))) {
          throw notFound(
            'No upload of yours at this address: it finished, was terminated or expired, or it is not yours.',
          )
        }
        if (method === 'PATCH') await touchReservation(c.em, id)
        if (method === 'HEAD') {
          const finished = await this.finishedHead(c, port, target, id)
          if (finished) return finished
        }
      }
      this.requests.set(c.req, request)
      try {
        await this.pass(server, c)
      } finally {
        if (id !== undefined) this.touched.delete(id)
      }
      const status = c.res.statusCode
      if (request.created && (status < 200 || status > 299)) await releaseReservation(c.em, [request.created.id])
      if (method === 'PATCH' && id !== undefined) await touchReservation(c.em, id)
      return reply.handled()
    } catch (error) {
      return this.errorReply(c, error)
    }
  }

  private async pass(server: Server, c: HttpContext): Promise<Reply> {
    endEvenWhenGone(c.res)
    await server.handle(c.req, c.res)
    return reply.handled()
  }

  /**
   * Checks a creation and reserves its length: Upload-Length is required (no deferred
   * length: quotas need it), the name is the `filename` metadata (`name` also read), made
   * harmless. 400 on malformed headers, 412/413 on size and quotas (see `reserve`).
   */
  private async create(c: HttpContext, target: UploadTarget): Promise<{ id: string; name: string }> {
    const header = (name: string): string | undefined => {
      const value = c.req.headers[name]
      return Array.isArray(value) ? value.join(',') : value
    }
    if (header('upload-concat') !== undefined) {
      throw new HttpError(501, 'Parallel uploads (concatenation) are not supported: send one upload.')
    }
    const length = header('upload-length')
    if (length === undefined) {
      throw badRequest('Upload-Length is required: uploads of unknown length (Upload-Defer-Length) are not supported.')
    }
    if (!/^\d{1,16}$/.test(length.trim()) || !Number.isSafeInteger(Number(length))) {
      throw badRequest('Upload-Length must be a whole number of bytes.')
    }
    let metadata: Record<string, string | null> = {}
    try {
      const sent = header('upload-metadata')
      if (sent?.trim()) metadata = Metadata.parse(sent)
    } catch {
      throw badRequest('Upload-Metadata is malformed: comma-separated "key base64value" pairs, each key once.')
    }
    const name = safeFileName(metadata.filename ?? metadata.name ?? '')
    const id = randomBytes(16).toString('hex')
    await reserve(c.em, this.deps.config, {
      uploader: target.uploader,
      directoryId: target.directory?.id ?? null,
      uploadId: id,
      length: Number(length),
    })
    return { id, name }
  }

  /**
   * A HEAD of an upload that has all its bytes but is no file yet (the server stopped
   * between the last byte and the file, or the file is being made): makes the file now (or
   * waits for it), so a client resuming after a lost answer never takes it for done while
   * no file exists. Undefined for anything else (@tus/server answers).
   */
  private async finishedHead(
    c: HttpContext,
    port: ResumableUploadsPort,
    target: UploadTarget,
    id: string,
  ): Promise<Reply | undefined> {
    let upload: Upload
    try {
      upload = await port.dataStore.getUpload(id)
    } catch {
      return undefined
    }
    if (upload.size === undefined || upload.offset !== upload.size) return undefined
    const file = await finishTusUpload(this.deps, c.em, port, {
      uploader: target.uploader,
      uploadId: id,
      name: safeFileName(upload.metadata?.filename ?? ''),
    })
    return {
      status: 200,
      headers: {
        ...this.protocolHeaders(c),
        'Cache-Control': 'no-store',
        'Upload-Offset': String(upload.size),
        'Upload-Length': String(upload.size),
        'Upload-File': c.links.url('file', file.slug),
      },
    }
  }

  /** What every tus answer carries: the protocol version and, for browsers, CORS. */
  private protocolHeaders(c: HttpContext): Record<string, string> {
    const origin = c.req.headers.origin
    return {
      'Tus-Resumable': TUS_RESUMABLE,
      ...(origin ? { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED.join(', ') } : {}),
    }
  }

  /** An error before or around @tus/server, as JSON (unexpected ones are logged, never shown). */
  private errorReply(c: HttpContext, error: unknown): Reply {
    const known = asUploadError(c, error)
    if (c.res.headersSent) {
      c.res.destroy()
      return reply.handled()
    }
    return reply.json(known.status, uploadErrorBody(known), { ...known.headers, ...this.protocolHeaders(c) })
  }

  /** The @tus/server of the port, made on the first request. */
  private serverFor(port: ResumableUploadsPort): Server {
    if (this.server) return this.server
    const { deps } = this
    const { config } = deps
    const requestOf = (req: unknown): TusRequest => {
      const node = (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req
      const request = node && this.requests.get(node)
      if (!request) throw new Error('a tus request reached @tus/server without going through the tus routes')
      return request
    }
    const server = new Server({
      path: '/upload/tus',
      // Every serving process takes an upload's lock through the locks port (state: database by default).
      locker: new PortLocker(deps.locks),
      datastore: new ReservingStore(port.dataStore, (id) => releaseReservation(deps.em(), [id])),
      maxSize: config.max_file_size > 0 ? config.max_file_size : undefined,
      exposedHeaders: EXPOSED,
      allowedHeaders: ['Upload-Token'],
      // Touches during a long PATCH go through POST_RECEIVE, at most this often.
      postReceiveInterval: 10_000,
      // The upload base URL, whatever host the request came through, with the token: the
      // client sends HEAD and PATCH there, the token checked each time.
      generateUrl: (req, { id }) => {
        const { c } = requestOf(req)
        const token = tokenOf(c)
        return `${deps.uploadLinks.base}/upload/tus/${id}${token ? `?token=${encodeURIComponent(token)}` : ''}`
      },
      getFileIdFromRequest: (req) => {
        const id = UPLOAD_PATH.exec(new URL(req.url).pathname)?.[1]
        return id && RESUMABLE_UPLOAD_ID.test(id) ? id : undefined
      },
      namingFunction: (req) => {
        const created = requestOf(req).created
        if (!created) throw new TusAnswer(500, 'no upload was reserved for this creation')
        return created.id
      },
      // The client's metadata is not kept: only the harmless file name, which the file will bear.
      onUploadCreate: async (req) => ({ metadata: { filename: requestOf(req).created!.name } }),
      onUploadFinish: async (req, upload) => {
        const { c, target, port: store } = requestOf(req)
        const file = await finishTusUpload(deps, c.em, store, {
          uploader: target.uploader,
          uploadId: upload.id,
          name: safeFileName(upload.metadata?.filename ?? ''),
        })
        return {
          // A PATCH answers 204 unless it has a body; a creation with its whole body stays 201 (Location).
          status_code: req.method === 'PATCH' ? 200 : undefined,
          headers: { 'Upload-File': c.links.url('file', file.slug), 'Content-Type': 'application/json; charset=utf-8' },
          body: JSON.stringify(uploadResult(c, file)),
        }
      },
      onResponseError: (req, error) => {
        if (error instanceof TusAnswer || !(error instanceof Error)) return undefined
        const known = asUploadError(requestOf(req).c, error)
        return { status_code: known.status, body: JSON.stringify(uploadErrorBody(known)) }
      },
    })
    server.on(EVENTS.POST_RECEIVE, (_source: unknown, upload: Upload) => this.receiving(upload.id))
    this.server = server
    return server
  }

  /** Keeps the reservation of an upload receiving bytes from looking idle to the purge during a long PATCH. */
  private receiving(id: string): void {
    const now = Date.now()
    const last = this.touched.get(id)
    // The PATCH marked it when it started; then once per quarter of the idle time allowed.
    if (last === undefined) this.touched.set(id, now)
    if (last === undefined || now - last < (this.deps.config.pending_ttl * 1000) / 4) return
    this.touched.set(id, now)
    touchReservation(this.deps.em(), id).catch((error: unknown) =>
      this.deps.log.warn({ err: error, uploadId: id }, 'tus upload not marked active'),
    )
  }
}

/**
 * `/upload/tus` (creation) and `/upload/tus/<id>` (HEAD, PATCH, DELETE): resumable uploads
 * (tus 1.0: creation, creation-with-upload, termination) on the token of an upload link,
 * which is checked on every request. Every method is routed here; @tus/server answers.
 */
export function tusRoutes(r: Router, deps: FilesDeps): void {
  const endpoint = new TusEndpoint(deps)
  const options = { public: true, permission: UPLOAD_PERMISSION, produces: 'application/json' }
  r.all('/upload/tus', (c) => endpoint.handle(c), options)
  r.all('/upload/tus/:id', (c) => endpoint.handle(c), options)
}
