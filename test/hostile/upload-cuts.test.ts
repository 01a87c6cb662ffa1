import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filesConfigSchema } from '../../plugins/files/files.config.js'
import { purge } from '../../plugins/files/purge.job.js'
import { tusPurgeStep } from '../../plugins/files/tus.service.js'
import { xmlOf } from '../helpers/answers.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { type DigestClient, rawRequest } from '../helpers/digest-client.js'
import { waitFor } from '../helpers/wait.js'
import { type XmlObject, list, parseXml, text } from '../helpers/xml.js'
import {
  MP4,
  STORE_ONLY,
  countRows,
  fileRequest,
  filesDeps,
  other,
  storedBytes,
  storedKeys,
  tempFiles,
  usedSpace,
} from '../plugins/files/files.helpers.js'
import { makeProfile, userWithProfile } from '../plugins/identity/permissions.fixtures.js'
import { expectDescriptorsBack, filesUnder, openDescriptors } from './hostile.helpers.js'
import {
  type HandlerProbe,
  type RawExchange,
  SEED,
  expectServing,
  headLength,
  probeHandlers,
  rawExchange,
  requestBytes,
  seeded,
  watchLeakedHandles,
} from './cuts.helpers.js'

/**
 * Clients disconnecting at random byte offsets (seeded: MEDIACTL_TEST_SEED replays a run)
 * of each way in: multipart `POST /files`, chunked uploads (`chunk`/`chunks`), tus PATCH
 * (and a tus creation carrying its first bytes). After every cut the store must be whole:
 * the server answers, every stored object belongs to a file or to a pending upload, no
 * temporary file or upload guard is left, `used_space` is the sum of the files' sizes, and
 * every file's bytes read back in full. Resumed uploads give exactly the file sent; what
 * is given up goes away with a termination or the purge.
 */

const KiB = 1024
const MiB = 1024 * KiB
const PENDING_TTL = 3600
/** The uploader's profile quota: the test ends by filling it exactly. */
const QUOTA = 24 * MiB
const FLAGS = ['file.create', 'file.delete', 'folder.create']
const OCTETS = 'application/offset+octet-stream'

describe('uploads cut at random offsets', () => {
  let app: TestApp
  let uploader: DigestClient
  let probe: HandlerProbe
  /** Every file that should exist, by slug, with its exact content. */
  const expected = new Map<string, Buffer>()
  /** Cut points made, per way in. */
  const cuts = { multipart: 0, chunked: 0, tus: 0 }
  let descriptors: number
  /** Handlers `expectConsistent` has checked so far. */
  let checked = 0
  const handles = watchLeakedHandles()

  beforeAll(async () => {
    app = await startApp({ config: { ...STORE_ONLY, files: { pending_ttl: PENDING_TTL } } })
    probe = probeHandlers(app)
    uploader = await userWithProfile(app, 'uploader', await makeProfile(app, FLAGS, 'default', QUOTA))
    await uploader.handshake()
    await expectServing(uploader)
    descriptors = openDescriptors()
  })

  afterAll(async () => {
    console.info(`upload cuts (seed ${SEED}): ${JSON.stringify(cuts)}`)
    handles.stop()
    await app?.close()
  })

  /** A request of the uploader (Digest), as raw bytes. */
  function digestRequest(method: string, path: string, body: Buffer, headers: Record<string, string>): RawExchange {
    return { method, path, body, headers: { ...headers, authorization: uploader.authorization(method, path) } }
  }

  /** Cuts made so far: each request carries its number (`X-Cut-Id`), to find its handler. */
  let cutCount = 0

  /**
   * Sends `exchange` and destroys the connection after a random number of its bytes: in the
   * head (the server never sees a request; unless `inBody`), or in the body at least a few
   * bytes in (node:http may not start a request cut within a couple of bytes of its head).
   * Then waits until the request reached its handler and the handler settled: checks run on
   * what the server did with the cut request, not before it started.
   */
  async function cut(random: ReturnType<typeof seeded>, exchange: RawExchange, inBody = false): Promise<number> {
    const id = `cut-${++cutCount}`
    const sent = { ...exchange, headers: { ...exchange.headers, 'x-cut-id': id } }
    const head = headLength(app.url, sent)
    const total = requestBytes(app.url, sent).length
    let at: number
    do at = random.int(inBody ? head : 1, total - 1)
    while (at >= head && at < head + 16)
    const seen = probe.seen.length
    const outcome = await rawExchange(app.url, sent, { kind: 'destroy', at })
    expect(outcome.status, 'no answer can come before the cut').toBeUndefined()
    if (at >= head) {
      await probe.settle(seen, 10_000, [id])
      expect(
        probe.seen.slice(seen).find((entry) => entry.id === id),
        `the request cut after ${at - head} bytes of body reached its handler`,
      ).toBeDefined()
    }
    return at - head
  }

  /** Sends `exchange` whole and answers the status and body. */
  async function whole(exchange: RawExchange): Promise<{ status: number; body: string }> {
    const outcome = await rawExchange(app.url, exchange, { kind: 'complete' })
    return { status: outcome.status ?? 0, body: outcome.body?.toString() ?? '' }
  }

  /** Rows the checks read. */
  const rows = <T>(sql: string): Promise<T[]> => app.kernel.em().execute<T[]>(sql)
  const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T

  /**
   * The store is whole: every handler settled, the server answers, nothing temporary is
   * left, every stored object belongs to a file or a pending upload (and each pending tus
   * upload to its reservation), `used_space` is the files' sizes, every file reads back in
   * full with exactly the bytes expected.
   */
  async function expectConsistent(): Promise<void> {
    // The requests since the last check (a request that never settles is reported once).
    const from = checked
    checked = probe.seen.length
    await probe.expectSettled(from)
    await expectServing(uploader)
    // A cut upload's cleanup runs once its handler saw the error: wait for it to finish.
    await waitFor(async () => tempFiles(app).length === 0 && (await countRows(app, 'storage_trash')) === 0, {
      message: 'temporary files and upload guards to go',
    }).catch(() => undefined)
    expect(tempFiles(app), 'temporary files').toEqual([])
    expect(handles.leaked, 'files closed by garbage collection, not by their request').toEqual([])
    expect(await countRows(app, 'storage_trash'), 'upload guards and trash').toBe(0)

    const files = await rows<{
      slug: string
      size: number | string
      stored_bytes: number | string
      storage_key: string
    }>('select slug, size, stored_bytes, storage_key from files')
    const pending = await rows<{
      name: string
      chunks: number
      pieces: unknown
      piece_sizes: unknown
      received_bytes: number | string
    }>('select name, chunks, pieces, piece_sizes, received_bytes from pending_uploads')
    const pieces = pending.flatMap((row) => json<string[]>(row.pieces))
    // No orphan bytes: each object is a file's source or a piece of a pending chunked upload.
    expect(await storedKeys(app), 'stored objects').toEqual([...files.map((f) => f.storage_key), ...pieces].sort())
    for (const row of pending.filter((each) => each.chunks > 0)) {
      const sizes = json<number[]>(row.piece_sizes)
      expect(Number(row.received_bytes)).toBe(sizes.reduce((a, b) => a + b, 0))
      for (const [index, key] of json<string[]>(row.pieces).entries()) {
        expect((await storedBytes(app, key)).length, `piece ${index} of ${row.name}`).toBe(sizes[index])
      }
    }
    // Each tus upload in the resumable store has its reservation, and each reservation its upload.
    const reserved = pending.filter((row) => row.chunks === 0).map((row) => row.name.replace(/^tus\//, ''))
    const held = [...new Set(filesUnder(join(app.dataDir, 'storage', '~tus')).map((n) => n.replace(/\.json$/, '')))]
    expect(held.sort(), 'tus uploads held').toEqual(reserved.sort())

    // Quotas: the files' sizes, exactly.
    const sizes = files.reduce((sum, f) => sum + Number(f.size), 0)
    expect(await usedSpace(app), 'used_space').toBe(sizes)
    expect(files.every((f) => Number(f.stored_bytes) === Number(f.size))).toBe(true)
    // Every listed file reads back in full, with exactly the bytes sent.
    const listed = list<XmlObject>(xmlOf(await uploader.get('/files'), 200).files.file)
    expect(listed.map((f) => text(f.slug)).sort(), 'listed files').toEqual([...expected.keys()].sort())
    for (const file of files) {
      const bytes = await storedBytes(app, file.storage_key)
      expect(bytes.length, `bytes of ${file.slug}`).toBe(Number(file.size))
      expect(bytes.equals(expected.get(file.slug)!), `content of ${file.slug}`).toBe(true)
    }
  }

  /** Records a file made, with the content it must hold. */
  const made = (slug: string, data: Buffer): void => void expected.set(slug, data)

  it('multipart POST /files: 20 cuts store nothing; a whole upload afterwards is the file', async () => {
    const random = seeded(`${SEED} multipart`)
    const data = other(MiB + random.int(0, 64 * KiB))
    const { body, headers } = fileRequest(data, { filename: 'cut.bin', fields: { name: 'cut.bin' } })
    for (let i = 0; i < 20; i++) {
      await cut(random, digestRequest('POST', '/files', body, headers))
      cuts.multipart += 1
      await expectConsistent()
    }
    const res = await whole(digestRequest('POST', '/files', body, headers))
    expect(res.status, res.body).toBe(200)
    made(text(parseXml(res.body).file.slug), data)
    await expectConsistent()
  })

  it('chunked uploads: each piece cut twice then sent; a received piece cut while resent stays as it was', async () => {
    const random = seeded(`${SEED} chunked`)
    for (let upload = 0; upload < 3; upload++) {
      const name = `pieces-${upload}.bin`
      const parts = [0, 1, 2].map(() => other(random.int(150 * KiB, 400 * KiB)))
      const piece = (index: number, data: Buffer) => {
        const fields = { name, chunk: String(index), chunks: String(parts.length) }
        const { body, headers } = fileRequest(data, { filename: 'blob', fields })
        return digestRequest('POST', '/files', body, headers)
      }
      for (const [index, data] of parts.entries()) {
        for (let i = 0; i < 2; i++) {
          await cut(random, piece(index, data))
          cuts.chunked += 1
          await expectConsistent()
        }
        // A replacement of the piece just received, cut: the received piece is kept as it was.
        if (index === 1) {
          await cut(random, piece(index, other(data.length)))
          cuts.chunked += 1
          await expectConsistent()
        }
        const res = await whole(piece(index, data))
        expect(res.status, res.body).toBe(200)
        if (index < parts.length - 1) {
          const bytes = parts.slice(0, index + 1).reduce((sum, part) => sum + part.length, 0)
          expect(JSON.parse(res.body)).toEqual({ chunk: index, chunks: parts.length, bytes })
        } else {
          made(text(parseXml(res.body).file.slug), Buffer.concat(parts))
        }
        await expectConsistent()
      }
    }
    expect(await countRows(app, 'pending_uploads')).toBe(0)
  })

  describe('tus', () => {
    let endpoint: string
    const tusHeaders = (extra: Record<string, string> = {}) => ({ 'tus-resumable': '1.0.0', ...extra })
    const metadata = (name: string) => `filename ${Buffer.from(name).toString('base64')}`

    beforeAll(async () => {
      const links = list<XmlObject>(xmlOf(await uploader.post('/files/upload_links'), 200).links.link)
      const json = new URL(String(links.find((link) => link['@rel'] === 'json')!['@href']))
      endpoint = `${json.pathname.replace(/\/upload\/json$/, '')}/upload/tus?token=${encodeURIComponent(json.searchParams.get('token')!)}`
    })

    /** Creates an upload (no bytes) and answers its path (with the token). */
    async function create(length: number, name: string): Promise<string> {
      const res = await rawRequest(`${app.url}${endpoint}`, 'POST', {
        headers: tusHeaders({ 'upload-length': String(length), 'upload-metadata': metadata(name) }),
      })
      expect(res.status, res.body).toBe(201)
      const location = new URL(String(res.headers.location))
      return location.pathname + location.search
    }

    /** The offset the server holds for an upload. */
    async function offsetOf(path: string): Promise<number> {
      const res = await rawRequest(`${app.url}${path}`, 'HEAD', { headers: tusHeaders() })
      expect(res.status).toBe(200)
      return Number(res.headers['upload-offset'])
    }

    const patch = (path: string, data: Buffer, offset: number): RawExchange => ({
      method: 'PATCH',
      path,
      headers: tusHeaders({ 'upload-offset': String(offset), 'content-type': OCTETS }),
      body: data.subarray(offset),
    })

    /** Cuts a PATCH from the server's offset; checks the offset kept is no more than what was sent. */
    async function cutPatch(random: ReturnType<typeof seeded>, path: string, data: Buffer): Promise<void> {
      const offset = await offsetOf(path)
      const body = await cut(random, patch(path, data, offset))
      cuts.tus += 1
      await expectConsistent()
      const kept = await offsetOf(path)
      expect(kept).toBeGreaterThanOrEqual(offset)
      expect(kept).toBeLessThanOrEqual(offset + Math.max(0, body))
    }

    /** Sends the rest of an upload whole: the last PATCH answers the file. */
    async function finish(path: string, data: Buffer): Promise<string> {
      const res = await whole(patch(path, data, await offsetOf(path)))
      expect(res.status, res.body).toBe(200)
      return (JSON.parse(res.body) as { result: { slug: string } }).result.slug
    }

    it('PATCH cut 8 times, then resumed: exactly the file sent', async () => {
      const random = seeded(`${SEED} tus resumed`)
      const data = Buffer.concat([MP4, randomBytes(3 * MiB + random.int(0, MiB) - MP4.length)])
      const path = await create(data.length, 'resumed.mp4')
      for (let i = 0; i < 8; i++) await cutPatch(random, path, data)
      made(await finish(path, data), data)
      await expectConsistent()
      expect(await countRows(app, 'pending_uploads')).toBe(0)
    })

    it('PATCH cut 4 times, then terminated: nothing remains', async () => {
      const random = seeded(`${SEED} tus terminated`)
      const data = other(2 * MiB + random.int(0, MiB))
      const path = await create(data.length, 'terminated.bin')
      for (let i = 0; i < 4; i++) await cutPatch(random, path, data)
      const res = await rawRequest(`${app.url}${path}`, 'DELETE', { headers: tusHeaders() })
      expect(res.status, res.body).toBe(204)
      await expectConsistent()
      expect(await countRows(app, 'pending_uploads')).toBe(0)
    })

    it('a creation carrying bytes cut 3 times, PATCH cut 3 times and given up: the purge leaves nothing', async () => {
      const random = seeded(`${SEED} tus purged`)
      for (let i = 0; i < 3; i++) {
        const data = other(MiB + random.int(0, MiB))
        const creation: RawExchange = {
          method: 'POST',
          path: endpoint,
          headers: tusHeaders({
            'upload-length': String(data.length),
            'upload-metadata': metadata(`created-${i}.bin`),
            'content-type': OCTETS,
          }),
          body: data,
        }
        // Cut in the body: the creation itself may be kept (its client never learnt where), or not.
        await cut(random, creation, true)
        cuts.tus += 1
        await expectConsistent()
      }
      const data = other(2 * MiB + random.int(0, MiB))
      const path = await create(data.length, 'given-up.bin')
      for (let i = 0; i < 3; i++) await cutPatch(random, path, data)
      const config = filesConfigSchema.parse({ pending_ttl: PENDING_TTL })
      const later = new Date(Date.now() + (PENDING_TTL + 60) * 1000)
      const deps = filesDeps(app.kernel, config)
      await purge(deps, app.kernel.em(), [tusPurgeStep(deps)], later)
      expect((await rawRequest(`${app.url}${path}`, 'HEAD', { headers: tusHeaders() })).status).toBe(404)
      await expectConsistent()
      expect(await countRows(app, 'pending_uploads')).toBe(0)
      expect(filesUnder(join(app.dataDir, 'storage', '~tus'))).toEqual([])
    })
  })

  it('after every cut, the quota is exact: what is left fits to the byte, one more byte does not', async () => {
    expect(cuts.multipart + cuts.chunked + cuts.tus).toBeGreaterThanOrEqual(50)
    const left = QUOTA - (await usedSpace(app))
    const fill = other(left)
    const res = await uploader.post('/files', fileRequest(fill, { filename: 'fill.bin' }))
    made(text(xmlOf(res, 200).file.slug), fill)
    const over = await uploader.post('/files', fileRequest(other(1), { filename: 'over.bin' }))
    expect(over.status, over.body).toBe(412)
    await expectConsistent()
    await expectDescriptorsBack(descriptors)
  })
})
