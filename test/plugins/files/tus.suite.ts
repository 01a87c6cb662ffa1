import { randomBytes } from 'node:crypto'
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net'
import { Readable } from 'node:stream'
import * as tus from 'tus-js-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filesConfigSchema } from '../../../plugins/files/files.config.js'
import { fileQueries } from '../../../plugins/files/file.queries.js'
import { purge } from '../../../plugins/files/purge.job.js'
import { tusPurgeStep } from '../../../plugins/files/tus.service.js'
import { signToken } from '../../../src/kernel/index.js'
import { INVALID, xmlOf } from '../../helpers/answers.js'
import type { TestApp, TestAppOptions } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { readAll } from '../../helpers/streams.js'
import { waitFor } from '../../helpers/wait.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { makeProfile, userWithFlags, userWithProfile } from '../identity/permissions.fixtures.js'
import { MP4, countRows, filesDeps, storedKeys } from './files.helpers.js'

const MiB = 1024 * 1024
const FLAGS = ['file.create', 'file.delete', 'folder.create']
const MAX_FILE_SIZE = 32 * MiB
const PENDING_TTL = 3600
const JSON_TYPE = 'application/json; charset=utf-8'

/** A backend under test: how to boot mediactl on it, and what its resumable store holds. */
export interface TusBackend {
  start(options: TestAppOptions): Promise<TestApp>
  /** Names of everything the backend keeps for tus uploads (files of `~tus`, objects under `tus/`). */
  leftovers(app: TestApp): Promise<string[]>
  /**
   * Bytes a cut PATCH may lose: what the store keeps of a request that breaks (storage-fs
   * keeps every byte written; @tus/s3-store whole parts, and a shorter last one when the
   * request ends cleanly), so the resume test cuts late enough for some to be kept.
   */
  partSize: number
  stop?(): Promise<void>
}

/**
 * A TCP proxy in front of mediactl, standing for the upload base URL: the tus endpoint
 * answers addresses under it. Once armed, the connection carrying the client's next
 * `bytes` bytes (whichever, kept alive or new) is cut there, both sockets destroyed, as a
 * dropped network would.
 */
class CuttingProxy {
  private server: Server | undefined
  private readonly sockets = new Set<Socket>()
  /** Client bytes still let through before the cut; Infinity: not armed. */
  private remaining = Infinity
  /** Where connections go (mediactl's port), set once it listens. */
  target = 0
  /** Connections cut so far. */
  cuts = 0

  async start(): Promise<string> {
    this.server = createServer((client) => this.relay(client))
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise((resolve) => this.server?.close(resolve))
  }

  /** Cuts the connection that carries the client's `bytes`-th byte from now. */
  arm(bytes: number): void {
    this.remaining = bytes
  }

  private relay(client: Socket): void {
    const upstream = connect(this.target, '127.0.0.1')
    for (const socket of [client, upstream]) {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
      socket.on('error', () => undefined)
    }
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
    upstream.on('data', (chunk: Buffer) => client.write(chunk))
    client.on('data', (chunk: Buffer) => {
      if (chunk.length <= this.remaining) {
        this.remaining -= chunk.length
        if (!upstream.write(chunk)) {
          client.pause()
          upstream.once('drain', () => client.resume())
        }
        return
      }
      const kept = chunk.subarray(0, this.remaining)
      this.remaining = Infinity
      this.cuts += 1
      client.removeAllListeners('data')
      upstream.write(kept, () => {
        client.destroy()
        upstream.destroy()
      })
    })
  }
}

/** The outcome of a tus-js-client upload. */
interface Sent {
  url: string | null
  /** The answer to the last request (the PATCH, or the POST of a creation with its body). */
  last?: tus.HttpResponse
  error?: tus.DetailedError
  /** Offsets the server answered to HEAD requests, and the offsets PATCH requests started at. */
  heads: number[]
  patches: number[]
}

/** Uploads with tus-js-client and resolves once it succeeds or fails (no retries: failures show). */
function send(
  data: Buffer,
  options: tus.UploadOptions & { abortAfter?: number },
): Promise<Sent & { upload: tus.Upload }> {
  const sent: Sent = { url: null, heads: [], patches: [] }
  return new Promise((resolve) => {
    const upload = new tus.Upload(data, {
      retryDelays: null,
      ...options,
      onBeforeRequest: (req) => {
        if (req.getMethod() === 'PATCH') sent.patches.push(Number(req.getHeader('Upload-Offset')))
      },
      onAfterResponse: (req, res) => {
        if (req.getMethod() === 'HEAD') sent.heads.push(Number(res.getHeader('Upload-Offset')))
      },
      onSuccess: ({ lastResponse }) => resolve({ ...sent, url: upload.url, last: lastResponse, upload }),
      onError: (error) => resolve({ ...sent, url: upload.url, error: error as tus.DetailedError, upload }),
    })
    upload.start()
  })
}

/** The token of an upload link (root, or a directory), and the tus endpoint under the upload base. */
async function uploadLink(client: DigestClient, directory?: string): Promise<{ token: string; endpoint: string }> {
  const path = directory ? `/files/${directory}/upload_links` : '/files/upload_links'
  const links = list<XmlObject>(xmlOf(await client.post(path), 200).links.link)
  const json = new URL(String(links.find((link) => link['@rel'] === 'json')!['@href']))
  const token = json.searchParams.get('token')!
  return { token, endpoint: `${json.origin}/upload/tus` }
}

/** The headers of a tus request (the protocol version, and the token unless it is in the URL). */
const tusHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({
  'Tus-Resumable': '1.0.0',
  ...extra,
})

const metadata = (filename: string): string => `filename ${Buffer.from(filename).toString('base64')}`

/** A JSON error answer of the tus endpoint. */
function expectJsonError(res: Response, status: number, message: string, fields?: Record<string, string>): void {
  expect(res.status, res.body).toBe(status)
  expect(res.headers['content-type']).toBe(JSON_TYPE)
  expect(res.headers['tus-resumable']).toBe('1.0.0')
  expect(JSON.parse(res.body)).toEqual({ error: { code: status, message, ...(fields ? { fields } : {}) } })
}

const filled = (size: number): Buffer => Buffer.concat([MP4, randomBytes(size - MP4.length)])

/**
 * Resumable uploads (tus) on a storage backend, end to end: tus-js-client (or raw protocol
 * requests) against a real mediactl, through a proxy standing for the upload base URL.
 */
export function tusSuite(label: string, backend: TusBackend): void {
  describe(`tus uploads on ${label}`, () => {
    let app: TestApp
    let alice: DigestClient
    let bob: DigestClient
    const proxy = new CuttingProxy()
    let base: string

    /** Creates an upload with a raw POST; answers the creation and the upload's URL (with the token). */
    async function create(
      endpoint: string,
      length: number,
      headers: Record<string, string> = {},
    ): Promise<{ res: Response; url: string }> {
      const res = await rawRequest(endpoint, 'POST', {
        headers: tusHeaders({ 'Upload-Length': String(length), 'Upload-Metadata': metadata('raw.bin'), ...headers }),
      })
      return { res, url: String(res.headers.location ?? '') }
    }

    /** Sends bytes at an offset with a raw PATCH. */
    function patch(url: string, offset: number, data: Buffer, headers: Record<string, string> = {}): Promise<Response> {
      return rawRequest(url, 'PATCH', {
        headers: tusHeaders({
          'Upload-Offset': String(offset),
          'Content-Type': 'application/offset+octet-stream',
          ...headers,
        }),
        body: data,
      })
    }

    const head = (url: string, headers: Record<string, string> = {}): Promise<Response> =>
      rawRequest(url, 'HEAD', { headers: tusHeaders(headers) })

    /** Waits until an upload's offset (HEAD) reads the same twice in a row, 150 ms apart. */
    async function settledOffset(url: string): Promise<void> {
      let last = (await head(url)).headers['upload-offset']
      await waitFor(
        async () => {
          const now = (await head(url)).headers['upload-offset']
          const same = now === last
          last = now
          return same
        },
        { interval: 150, message: 'the upload offset to hold still' },
      )
    }

    /** Checks the file a finished upload became, through the API and in storage; answers it. */
    async function expectFile(
      client: DigestClient,
      slug: string,
      expected: { name: string; data: Buffer; directory?: string },
    ): Promise<void> {
      const file = xmlOf(await client.get(`/file/${slug}`), 200).file as XmlObject
      expect(text(file.name)).toBe(expected.name)
      expect(text(file.size)).toBe(String(expected.data.length))
      expect(text(file.type)).toBe('video')
      const directory = expected.directory ? `${app.url}/files/${expected.directory}` : `${app.url}/files`
      expect(file.directory).toEqual({ '@href': directory, '@rel': 'parent' })
      const row = await fileQueries.fileBySlug(app.kernel.services.reader, slug)
      expect(row!.storageKey).toMatch(/^files\/[0-9a-f]{24}\/source$/)
      const stored = await readAll(await app.kernel.services.ports.get('storage').read(row!.storageKey))
      expect(stored.equals(expected.data)).toBe(true)
    }

    const config = () => filesConfigSchema.parse({ pending_ttl: PENDING_TTL })
    /** The purge as the files plugin runs it, with its tus step. */
    const purgeAt = (now: Date) => {
      const deps = filesDeps(app.kernel, config())
      return purge(deps, app.kernel.em(), [tusPurgeStep(deps)], now)
    }

    /** Nothing left of tus uploads: no reservation, nothing in the resumable store. */
    async function expectNothingPending(): Promise<void> {
      expect(await countRows(app, 'pending_uploads')).toBe(0)
      expect(await backend.leftovers(app)).toEqual([])
    }

    beforeAll(async () => {
      base = await proxy.start()
      app = await backend.start({
        config: { files: { max_file_size: MAX_FILE_SIZE, pending_ttl: PENDING_TTL, upload_base_url: base } },
      })
      proxy.target = Number(new URL(app.url).port)
      alice = await userWithFlags(app, 'alice', FLAGS)
      bob = await userWithFlags(app, 'bob', FLAGS)
    })

    afterAll(async () => {
      await app?.close()
      await proxy.stop()
      await backend.stop?.()
    })

    it('uploads a whole file that becomes a file of the link’s directory, like any upload', async () => {
      const directory = text(xmlOf(await alice.post('/files', { form: { name: 'Holidays' } }), 201).directory.slug)
      const { token, endpoint } = await uploadLink(alice, directory)
      expect(endpoint).toBe(`${base}/upload/tus`)
      const data = filled(3 * MiB + 12345)
      const sent = await send(data, {
        endpoint: `${endpoint}?token=${encodeURIComponent(token)}`,
        metadata: { filename: 'camera/../beach\u0000 day.mp4', filetype: 'video/mp4' },
        chunkSize: MiB,
      })
      expect(sent.error).toBeUndefined()
      // The upload's address: under the upload base URL, with the token.
      expect(sent.url).toMatch(new RegExp(`^${base}/upload/tus/[0-9a-f]{32}\\?token=`))
      expect(new URL(sent.url!).searchParams.get('token')).toBe(token)
      expect(sent.patches).toEqual([0, MiB, 2 * MiB, 3 * MiB])
      // The last PATCH tells the file: a header and the json endpoint's result.
      const last = sent.last!
      expect(last.getStatus()).toBe(200)
      const answer = JSON.parse(last.getBody()) as { result: { slug: string } }
      const slug = answer.result.slug
      expect(answer).toEqual({
        result: { slug, name: 'beach day.mp4', size: data.length, href: `${app.url}/file/${slug}` },
      })
      expect(last.getHeader('Upload-File')).toBe(`${app.url}/file/${slug}`)
      expect(last.getHeader('Upload-Offset')).toBe(String(data.length))
      await expectFile(alice, slug, { name: 'beach day.mp4', data, directory })
      await expectNothingPending()
      // The upload is gone once it is a file.
      expect((await head(sent.url!)).status).toBe(404)
    })

    it('takes the token from the Upload-Token header too, and a creation carrying all the bytes', async () => {
      const { token, endpoint } = await uploadLink(alice)
      const data = filled(200 * 1024)
      const sent = await send(data, {
        endpoint,
        headers: { 'Upload-Token': token },
        metadata: { filename: 'small.mp4' },
        uploadDataDuringCreation: true,
      })
      expect(sent.error).toBeUndefined()
      expect(sent.patches).toEqual([])
      const last = sent.last!
      expect(last.getStatus()).toBe(201)
      const slug = (JSON.parse(last.getBody()) as { result: { slug: string } }).result.slug
      expect(last.getHeader('Upload-File')).toBe(`${app.url}/file/${slug}`)
      await expectFile(alice, slug, { name: 'small.mp4', data })
      await expectNothingPending()
    })

    it('resumes where the server stopped after the connection was cut halfway', async () => {
      const { token, endpoint } = await uploadLink(alice)
      const data = filled(Math.round(backend.partSize * 2.4))
      const url = `${endpoint}?token=${encodeURIComponent(token)}`
      const cuts = proxy.cuts
      proxy.arm(Math.round(backend.partSize * 1.4))
      const broken = await send(data, { endpoint: url, metadata: { filename: 'cut.mp4' } })
      expect(proxy.cuts).toBe(cuts + 1)
      expect(broken.error).toBeDefined()
      expect(broken.url).toMatch(/\/upload\/tus\/[0-9a-f]{32}\?token=/)
      // The server may still be storing the bytes that came before the cut: resume once its
      // offset holds still, as a client would after a first resume answered 409 (offset moved).
      await settledOffset(broken.url!)
      const resumed = await send(data, { endpoint: url, uploadUrl: broken.url, metadata: { filename: 'cut.mp4' } })
      expect(resumed.error).toBeUndefined()
      // The HEAD found what the server kept, and the client went on from there: no restart.
      expect(resumed.heads).toHaveLength(1)
      const offset = resumed.heads[0]!
      expect(offset).toBeGreaterThan(0)
      expect(offset).toBeLessThan(data.length)
      expect(resumed.patches).toEqual([offset])
      const slug = (JSON.parse(resumed.last!.getBody()) as { result: { slug: string } }).result.slug
      await expectFile(alice, slug, { name: 'cut.mp4', data })
      await expectNothingPending()
    })

    it('answers OPTIONS without a token (the protocol’s options, for CORS preflights), GET with 405', async () => {
      const { token, endpoint } = await uploadLink(alice)
      const res = await rawRequest(endpoint, 'OPTIONS', {
        headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'POST' },
      })
      expect(res.status).toBe(204)
      expect(res.headers['tus-version']).toBe('1.0.0')
      expect(res.headers['tus-extension']).toBe('creation,creation-with-upload,termination')
      expect(res.headers['tus-max-size']).toBe(String(MAX_FILE_SIZE))
      expect(res.headers['access-control-allow-headers']).toContain('Upload-Token')
      expect(res.headers['access-control-expose-headers']).toContain('Upload-File')
      const MESSAGE = 'Create a tus upload with POST /upload/tus, then send it with PATCH to its address.'
      const get = await rawRequest(`${endpoint}?token=${encodeURIComponent(token)}`, 'GET')
      expectJsonError(get, 405, MESSAGE)
      expect(get.headers.allow).toBe('OPTIONS, POST')
      const { url } = await create(`${endpoint}?token=${encodeURIComponent(token)}`, 10)
      expectJsonError(await rawRequest(url, 'GET'), 405, MESSAGE)
      expectJsonError(await rawRequest(url, 'POST', { headers: tusHeaders({ 'Upload-Length': '10' }) }), 405, MESSAGE)
      expect((await rawRequest(url, 'DELETE', { headers: tusHeaders() })).status).toBe(204)
      await expectNothingPending()
    })

    it('terminates an upload (DELETE): its bytes and its reservation go', async () => {
      const { token, endpoint } = await uploadLink(alice)
      const { res, url } = await create(`${endpoint}?token=${encodeURIComponent(token)}`, 5000)
      expect(res.status, res.body).toBe(201)
      expect(res.headers['tus-resumable']).toBe('1.0.0')
      expect(await countRows(app, 'pending_uploads')).toBe(1)
      const sent = await patch(url, 0, randomBytes(1000))
      expect(sent.status, sent.body).toBe(204)
      expect(sent.headers['upload-offset']).toBe('1000')
      // The backend holds the upload, under names of its own made from the id.
      const id = /\/upload\/tus\/([0-9a-f]{32})\?/.exec(url)![1]!
      const held = await backend.leftovers(app)
      expect(held.length).toBeGreaterThan(0)
      for (const name of held) expect(name).toContain(id)
      const found = await head(url)
      expect(found.status).toBe(200)
      expect(found.headers['upload-offset']).toBe('1000')
      expect(found.headers['upload-length']).toBe('5000')
      expect((await rawRequest(url, 'DELETE', { headers: tusHeaders() })).status).toBe(204)
      expect((await head(url)).status).toBe(404)
      expect((await patch(url, 1000, randomBytes(10))).status).toBe(404)
      await expectNothingPending()
    })

    it('refuses a missing, forged or expired token (401), on creation and on every request of an upload', async () => {
      const { token, endpoint } = await uploadLink(alice)
      const forged = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA')
      const expired = signToken(
        app.kernel.services.secret,
        'upload',
        { u: 'alice', d: null },
        new Date(Date.now() - 1000),
      )
      const NOT_VALID = 'The upload token is not valid: ask for a new upload link (POST /files/upload_links).'
      const EXPIRED = 'The upload link expired: ask for a new one (POST /files/upload_links).'
      expectJsonError(
        (await create(endpoint, 100)).res,
        401,
        'This endpoint needs the token of an upload link (POST /files/upload_links).',
      )
      expectJsonError((await create(endpoint, 100, { 'Upload-Token': forged })).res, 401, NOT_VALID)
      expectJsonError((await create(`${endpoint}?token=${expired}`, 100)).res, 401, EXPIRED)
      // tus-js-client sees the refusal as a failed creation.
      const refused = await send(randomBytes(100), { endpoint, headers: { 'Upload-Token': forged } })
      expect(refused.error?.originalResponse?.getStatus()).toBe(401)
      await expectNothingPending()

      const { url } = await create(`${endpoint}?token=${encodeURIComponent(token)}`, 3000)
      expect((await patch(url, 0, randomBytes(1000))).status).toBe(204)
      const bare = url.split('?')[0]!
      for (const bad of [`${bare}?token=${forged}`, `${bare}?token=${expired}`, bare]) {
        expect((await head(bad)).status).toBe(401)
        expect((await patch(bad, 1000, randomBytes(500))).status).toBe(401)
        expect((await rawRequest(bad, 'DELETE', { headers: tusHeaders() })).status).toBe(401)
      }
      expect((await head(url)).headers['upload-offset']).toBe('1000')
      expect((await rawRequest(url, 'DELETE', { headers: tusHeaders() })).status).toBe(204)
      await expectNothingPending()
    })

    it("answers 404 to another user's token on an upload's address, and leaves the upload alone", async () => {
      const mine = await uploadLink(alice)
      const theirs = await uploadLink(bob)
      const { url } = await create(`${mine.endpoint}?token=${encodeURIComponent(mine.token)}`, 3000)
      expect((await patch(url, 0, randomBytes(1000))).status).toBe(204)
      const stolen = `${url.split('?')[0]}?token=${encodeURIComponent(theirs.token)}`
      const NOT_YOURS =
        'No upload of yours at this address: it finished, was terminated or expired, or it is not yours.'
      // A HEAD answer has no body.
      expect((await head(stolen)).status).toBe(404)
      expectJsonError(await patch(stolen, 1000, randomBytes(2000)), 404, NOT_YOURS)
      expectJsonError(await rawRequest(stolen, 'DELETE', { headers: tusHeaders() }), 404, NOT_YOURS)
      // The header token of another user is no better than the query's.
      expect((await head(url.split('?')[0]!, { 'Upload-Token': theirs.token })).status).toBe(404)
      expect((await head(url)).headers['upload-offset']).toBe('1000')
      expect((await rawRequest(url, 'DELETE', { headers: tusHeaders() })).status).toBe(204)
      await expectNothingPending()
    })

    it('refuses at creation what does not fit (quota 412, max_file_size 413), storing nothing', async () => {
      const quota = 50_000
      const profile = await makeProfile(app, FLAGS, 'default', quota)
      const carol = await userWithProfile(app, 'carol', profile)
      const { token, endpoint } = await uploadLink(carol)
      const url = `${endpoint}?token=${encodeURIComponent(token)}`
      const keys = await storedKeys(app)
      const full = (left: number) => ({
        'Upload-Length': `exceeds your profile's quota of ${quota} bytes (${left} bytes left)`,
      })
      const NO_SPACE = 'Not enough space left: delete files or ask an administrator for more space.'
      expectJsonError(
        (await create(url, quota + 1)).res,
        412,
        `${NO_SPACE} Upload-Length: ${full(quota)['Upload-Length']}`,
        full(quota),
      )
      const refused = await send(randomBytes(quota + 1), { endpoint: url })
      expect(refused.error?.originalResponse?.getStatus()).toBe(412)
      expectJsonError(
        (await create(url, MAX_FILE_SIZE + 1)).res,
        413,
        `The file is larger than ${MAX_FILE_SIZE} bytes, the largest this server accepts.`,
      )
      expectJsonError((await create(url, 0)).res, 412, `${INVALID} Upload-Length: the file is empty (0 bytes)`, {
        'Upload-Length': 'the file is empty (0 bytes)',
      })
      const deferred = await rawRequest(url, 'POST', { headers: tusHeaders({ 'Upload-Defer-Length': '1' }) })
      expectJsonError(
        deferred,
        400,
        'Upload-Length is required: uploads of unknown length (Upload-Defer-Length) are not supported.',
      )
      expect(await storedKeys(app)).toEqual(keys)
      await expectNothingPending()

      // An upload under way holds its whole length: the next one must fit in what is left.
      const first = await create(url, quota - 100)
      expect(first.res.status).toBe(201)
      expect((await patch(first.url, 0, randomBytes(10))).status).toBe(204)
      expectJsonError(
        (await create(url, 101)).res,
        412,
        `${NO_SPACE} Upload-Length: ${full(100)['Upload-Length']}`,
        full(100),
      )
      const second = await create(url, 100)
      expect(second.res.status).toBe(201)
      // Terminating frees the space.
      for (const { url: each } of [first, second]) {
        expect((await rawRequest(each, 'DELETE', { headers: tusHeaders() })).status).toBe(204)
      }
      const exact = await create(url, quota)
      expect(exact.res.status).toBe(201)
      expect((await rawRequest(exact.url, 'DELETE', { headers: tusHeaders() })).status).toBe(204)
      await expectNothingPending()
    })

    it('expires an idle upload: the purge removes its bytes and its reservation', async () => {
      const { token, endpoint } = await uploadLink(alice)
      const { url } = await create(`${endpoint}?token=${encodeURIComponent(token)}`, 4000)
      expect((await patch(url, 0, randomBytes(1500))).status).toBe(204)
      const now = Date.now()
      // Still within files.pending_ttl: kept.
      let report = await purgeAt(new Date(now))
      expect(report.other).toBe(0)
      expect((await head(url)).headers['upload-offset']).toBe('1500')
      report = await purgeAt(new Date(now + (PENDING_TTL + 60) * 1000))
      expect(report.other).toBe(1)
      expect((await head(url)).status).toBe(404)
      await expectNothingPending()
    })

    it('makes the file on HEAD when every byte arrived but no file was made (the answer was lost)', async () => {
      const { token, endpoint } = await uploadLink(alice)
      const data = filled(300 * 1024)
      const { url } = await create(`${endpoint}?token=${encodeURIComponent(token)}`, data.length)
      const id = /\/upload\/tus\/([0-9a-f]{32})\?/.exec(url)![1]!
      // The bytes reach the store without the protocol's finish, as when the server stops right after them.
      await app.kernel.services.ports.get('resumableUploads').dataStore.write(Readable.from([data]), id, 0)
      const found = await head(url)
      expect(found.status, found.body).toBe(200)
      expect(found.headers['upload-offset']).toBe(String(data.length))
      expect(found.headers['upload-length']).toBe(String(data.length))
      const href = String(found.headers['upload-file'])
      const slug = href.slice(`${app.url}/file/`.length)
      expect(href).toBe(`${app.url}/file/${slug}`)
      await expectFile(alice, slug, { name: 'raw.bin', data })
      await expectNothingPending()
      expect((await head(url)).status).toBe(404)
    })
  })
}
