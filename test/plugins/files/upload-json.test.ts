import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ProfileEntity, UserEntity } from '../../../plugins/identity/index.js'
import { fileQueries } from '../../../plugins/files/file.queries.js'
import { signToken } from '../../../src/kernel/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { type Part, multipart } from '../../helpers/multipart.js'
import { readAll } from '../../helpers/streams.js'
import { INVALID, xmlOf } from '../../helpers/answers.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { userWithFlags } from '../identity/permissions.fixtures.js'

/** Real uploads through the json endpoint of upload links: no Digest, the token is the credential. */

const FLAGS = ['file.create', 'file.delete', 'folder.create']
const MAX_FILE_SIZE = 4 * 1024 * 1024
const JSON_TYPE = 'application/json; charset=utf-8'

interface Links {
  html: string
  json: string
}

/** POSTs the upload links of the root (or a directory) and checks the answer's shape. */
async function uploadLinks(app: TestApp, client: DigestClient, directory?: string, base = app.url): Promise<Links> {
  const path = directory ? `/files/${directory}/upload_links` : '/files/upload_links'
  const doc = xmlOf(await client.post(path), 200)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['links'])
  expect(doc.links['@href']).toBe(`${app.url}${path}`)
  const links = list<XmlObject>(doc.links.link)
  expect(links.map((l) => l['@rel'])).toEqual(['html', 'json'])
  const [html, json] = links.map((l) => String(l['@href']))
  expect(html).toMatch(new RegExp(`^${base.replace(/[.:/]/g, '\\$&')}/upload/html\\?token=[\\w.%-]+$`))
  expect(json).toBe(html!.replace('/upload/html?', '/upload/json?'))
  return { html: html!, json: json! }
}

interface JsonAnswer {
  status: number
  body: Record<string, unknown>
  res: Response
}

/** A multipart POST without credentials; the answer must be JSON, whatever happened. */
async function post(url: string, parts: Part[], headers: Record<string, string> = {}): Promise<JsonAnswer> {
  const { body, contentType } = multipart(parts)
  const res = await rawRequest(url, 'POST', { body, headers: { 'content-type': contentType, ...headers } })
  expect(res.headers['content-type'], res.body).toBe(JSON_TYPE)
  expect(res.headers['www-authenticate']).toBeUndefined()
  return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown>, res }
}

const filePart = (data: Buffer, filename = 'blob', name = 'file[path]'): Part => ({ name, filename, data })

/**
 * One piece of a chunked upload, as the spec's external form sends it (a chunking library such
 * as plupload): fields first, then the bytes named `blob`.
 */
const piece = (name: string, chunk: number | string, chunks: number | string, data: Buffer): Part[] => [
  { name: 'name', value: name },
  { name: 'chunk', value: String(chunk) },
  { name: 'chunks', value: String(chunks) },
  { name: 'error', value: 'true' },
  filePart(data),
]

/**
 * One piece as the upload page sends it with Flow.js: our fields, then Flow.js's own (which the
 * endpoint ignores), then the bytes under the file's real name.
 */
function flowPiece(name: string, chunk: number, sizes: number[], data: Buffer): Part[] {
  const total = sizes.reduce((sum, size) => sum + size, 0)
  return [
    { name: 'chunk', value: String(chunk) },
    { name: 'chunks', value: String(sizes.length) },
    { name: 'name', value: name },
    { name: 'error', value: 'true' },
    { name: 'flowChunkNumber', value: String(chunk + 1) },
    { name: 'flowChunkSize', value: String(sizes[0]) },
    { name: 'flowCurrentChunkSize', value: String(data.length) },
    { name: 'flowTotalSize', value: String(total) },
    { name: 'flowIdentifier', value: `${total}-${name.replace(/[^0-9a-zA-Z_-]/g, '')}` },
    { name: 'flowFilename', value: name },
    { name: 'flowRelativePath', value: name },
    { name: 'flowTotalChunks', value: String(sizes.length) },
    filePart(data, name),
  ]
}

function expectError(answer: JsonAnswer, status: number, message: string, fields?: Record<string, string>): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status)
  const error = fields ? { code: status, message, fields } : { code: status, message }
  expect(answer.body).toEqual({ error })
}

/** The expected 412 answer: the usual message followed by each field's, and the fields. */
function expectInvalid(answer: JsonAnswer, fields: Record<string, string>): void {
  const listed = Object.entries(fields)
    .map(([name, message]) => `${name}: ${message}`)
    .join('; ')
  expectError(answer, 412, `${INVALID} ${listed}`, fields)
}

describe('upload endpoints: POST /upload/json', () => {
  let app: TestApp
  let alice: DigestClient
  let root: Links
  let secret: string

  /** The stored bytes of a file, read back from the storage backend. */
  async function storedBytes(slug: string): Promise<Buffer> {
    const file = await fileQueries.fileBySlug(app.kernel.services.reader, slug)
    expect(file).toBeDefined()
    return readAll(await app.kernel.services.ports.get('storage').read(file!.storageKey))
  }

  /** Checks a final answer and the file behind it (Digest), and returns its slug. */
  async function expectFile(
    answer: JsonAnswer,
    client: DigestClient,
    expected: { name: string; data: Buffer; directory: string | null },
  ): Promise<string> {
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const result = answer.body.result as Record<string, unknown>
    expect(Object.keys(answer.body)).toEqual(['result'])
    expect(Object.keys(result)).toEqual(['slug', 'name', 'size', 'href'])
    const slug = String(result.slug)
    expect(result).toEqual({ slug, name: expected.name, size: expected.data.length, href: `${app.url}/file/${slug}` })
    const file = xmlOf(await client.get(`/file/${slug}`), 200).file as XmlObject
    expect(text(file.name)).toBe(expected.name)
    expect(text(file.size)).toBe(String(expected.data.length))
    const directory = expected.directory ? `${app.url}/files/${expected.directory}` : `${app.url}/files`
    expect(file.directory).toEqual({ '@href': directory, '@rel': 'parent' })
    expect((await storedBytes(slug)).equals(expected.data)).toBe(true)
    return slug
  }

  async function makeDirectory(client: DigestClient, name: string): Promise<string> {
    const doc = xmlOf(await client.post('/files', { form: { name } }), 201)
    return text(doc.directory.slug)
  }

  beforeAll(async () => {
    app = await startApp({ config: { files: { max_file_size: MAX_FILE_SIZE } } })
    secret = 'test-secret-' + app.dataDir
    alice = await userWithFlags(app, 'alice', FLAGS)
    root = await uploadLinks(app, alice)
  })

  afterAll(async () => {
    await app?.close()
  })

  describe('links', () => {
    it('answers an html and a json link under the public base URL, for the root and for a directory', async () => {
      const slug = await makeDirectory(alice, 'Links here')
      const links = await uploadLinks(app, alice, slug)
      expect(links.json.startsWith(`${app.url}/upload/json?token=`)).toBe(true)
      expect(links.json).not.toBe(root.json)
    })

    it('answers links under files.upload_base_url when it is configured', async () => {
      const other = await startApp({ config: { files: { upload_base_url: 'http://uploads.example:9000/' } } })
      try {
        const bob = await userWithFlags(other, 'bob', FLAGS)
        const links = await uploadLinks(other, bob, undefined, 'http://uploads.example:9000')
        expect(links.html.startsWith('http://uploads.example:9000/upload/html?token=')).toBe(true)
      } finally {
        await other.close()
      }
    })
  })

  describe('whole files', () => {
    it('uploads a whole file into the directory of the link (field file[path]), shown by GET /file with Digest', async () => {
      const slug = await makeDirectory(alice, 'Holidays')
      const links = await uploadLinks(app, alice, slug)
      const data = randomBytes(200_000)
      const answer = await post(links.json, [{ name: 'error', value: 'true' }, filePart(data, 'beach.bin')])
      const file = await expectFile(answer, alice, { name: 'beach.bin', data, directory: slug })
      const listing = xmlOf(await alice.get(`/files/${slug}`), 200)
      expect(list<XmlObject>(listing.files.file).map((f) => f['@href'])).toEqual([`${app.url}/file/${file}`])
    })

    it('accepts the file part as "path" or "file", and a folder field naming the link\'s own directory', async () => {
      const data = randomBytes(1000)
      await expectFile(await post(root.json, [filePart(data, 'one.bin', 'path')]), alice, {
        name: 'one.bin',
        data,
        directory: null,
      })
      const slug = await makeDirectory(alice, 'Same folder')
      const links = await uploadLinks(app, alice, slug)
      const answer = await post(links.json, [{ name: 'folder', value: slug }, filePart(data, 'two.bin', 'file')])
      await expectFile(answer, alice, { name: 'two.bin', data, directory: slug })
    })

    it('takes the token from the Upload-Token header too, and lets any origin read the answer', async () => {
      const data = randomBytes(500)
      const token = new URL(root.json).searchParams.get('token')!
      const answer = await post(`${app.url}/upload/json`, [filePart(data, 'header.bin')], {
        'upload-token': token,
        origin: 'https://frontend.example',
      })
      await expectFile(answer, alice, { name: 'header.bin', data, directory: null })
      expect(answer.res.headers['access-control-allow-origin']).toBe('https://frontend.example')
      expect(answer.res.headers['cache-control']).toBe('no-store')
    })
  })

  describe('pieces', () => {
    const pieces = (sizes: number[]): Buffer[] => sizes.map((size) => randomBytes(size))

    it('uploads a file in 3 pieces: progress after each, then the file, its bytes in order', async () => {
      const slug = await makeDirectory(alice, 'Pieces')
      const links = await uploadLinks(app, alice, slug)
      const [a, b, c] = pieces([100_000, 100_000, 12_345])
      expect(await post(links.json, piece('film.mp4', 0, 3, a!))).toMatchObject({
        status: 200,
        body: { chunk: 0, chunks: 3, bytes: 100_000 },
      })
      const second = await post(links.json, piece('film.mp4', 1, 3, b!))
      expect(second.status).toBe(200)
      expect(second.body).toEqual({ chunk: 1, chunks: 3, bytes: 200_000 })
      const last = await post(links.json, piece('film.mp4', 2, 3, c!))
      await expectFile(last, alice, { name: 'film.mp4', data: Buffer.concat([a!, b!, c!]), directory: slug })
    })

    it('takes the pieces of the upload page (Flow.js), ignoring its flow* fields', async () => {
      const sizes = [4000, 4000, 1500]
      const [a, b, c] = pieces(sizes)
      expect((await post(root.json, flowPiece('flow film.mp4', 0, sizes, a!))).body).toEqual({
        chunk: 0,
        chunks: 3,
        bytes: 4000,
      })
      expect((await post(root.json, flowPiece('flow film.mp4', 1, sizes, b!))).body).toEqual({
        chunk: 1,
        chunks: 3,
        bytes: 8000,
      })
      const last = await post(root.json, flowPiece('flow film.mp4', 2, sizes, c!))
      await expectFile(last, alice, { name: 'flow film.mp4', data: Buffer.concat([a!, b!, c!]), directory: null })
    })

    it('replaces a piece sent twice', async () => {
      const [a, b, b2, c] = pieces([5000, 5000, 4000, 300])
      await post(root.json, piece('twice.bin', 0, 3, a!))
      expect((await post(root.json, piece('twice.bin', 1, 3, b!))).body).toEqual({ chunk: 1, chunks: 3, bytes: 10_000 })
      expect((await post(root.json, piece('twice.bin', 1, 3, b2!))).body).toEqual({ chunk: 1, chunks: 3, bytes: 9000 })
      const last = await post(root.json, piece('twice.bin', 2, 3, c!))
      await expectFile(last, alice, { name: 'twice.bin', data: Buffer.concat([a!, b2!, c!]), directory: null })
    })

    it('refuses a piece out of order (412) and keeps the pieces received: the upload goes on', async () => {
      const [a, b, c] = pieces([3000, 3000, 3000])
      expect((await post(root.json, piece('order.bin', 0, 3, a!))).status).toBe(200)
      expectInvalid(await post(root.json, piece('order.bin', 2, 3, c!)), {
        chunk: 'piece 1 is expected next (pieces go in order)',
      })
      expect((await post(root.json, piece('order.bin', 1, 3, b!))).body).toEqual({ chunk: 1, chunks: 3, bytes: 6000 })
      const last = await post(root.json, piece('order.bin', 2, 3, c!))
      await expectFile(last, alice, { name: 'order.bin', data: Buffer.concat([a!, b!, c!]), directory: null })
    })

    it('refuses a first piece other than 0 (412)', async () => {
      expectInvalid(await post(root.json, piece('nothing.bin', 1, 2, randomBytes(10))), {
        chunk: 'no upload of "nothing.bin" is under way: start with piece 0',
      })
    })

    it('refuses bad chunk values (412), naming each field', async () => {
      const data = randomBytes(10)
      expectInvalid(await post(root.json, piece('bad.bin', 'x', 3, data)), { chunk: 'must be a whole number from 0' })
      expectInvalid(await post(root.json, piece('bad.bin', 3, 3, data)), {
        chunk: 'must be less than chunks (3): pieces count from 0',
      })
      expectInvalid(await post(root.json, piece('bad.bin', 0, 0, data)), {
        chunks: 'must be a whole number from 1 to 10000',
      })
      expectInvalid(await post(root.json, piece('bad.bin', -1, 'many', data)), {
        chunks: 'must be a whole number from 1 to 10000',
        chunk: 'must be a whole number from 0',
      })
      expectInvalid(await post(root.json, [{ name: 'chunk', value: '0' }, filePart(data)]), {
        chunks: 'is required with chunk: send the number of pieces',
      })
    })
  })

  describe('refusals, always JSON', () => {
    it('answers 412 without a file part, and for an empty file', async () => {
      expectInvalid(await post(root.json, [{ name: 'name', value: 'x.bin' }]), {
        path: 'send the file as the multipart file part "path" (or "file", "file[path]")',
      })
      expectInvalid(await post(root.json, [filePart(Buffer.alloc(0), 'empty.bin')]), {
        path: 'the file is empty (0 bytes)',
      })
    })

    it('answers 413 for a file over files.max_file_size', async () => {
      const answer = await post(root.json, [filePart(randomBytes(MAX_FILE_SIZE + 1), 'big.bin')])
      expectError(answer, 413, `The file is larger than ${MAX_FILE_SIZE} bytes, the largest this server accepts.`)
    })

    it('answers 400 for a body that is not a form', async () => {
      const res = await rawRequest(root.json, 'POST', { body: '{}', headers: { 'content-type': 'application/json' } })
      expect(res.headers['content-type']).toBe(JSON_TYPE)
      expectError(
        { status: res.status, body: JSON.parse(res.body) as Record<string, unknown>, res },
        400,
        'Send the request fields as application/x-www-form-urlencoded or multipart/form-data.',
      )
    })

    it('answers 401 without a token, and for a forged, malformed or foreign token', async () => {
      const data = randomBytes(10)
      expectError(
        await post(`${app.url}/upload/json`, [filePart(data)]),
        401,
        'This endpoint needs the token of an upload link (POST /files/upload_links).',
      )
      const token = new URL(root.json).searchParams.get('token')!
      const [body, mac] = token.split('.') as [string, string]
      const forged = `${body}.${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`
      const tampered = `${Buffer.from(JSON.stringify({ u: 'admin', d: null, exp: 4102444800 })).toString('base64url')}.${mac}`
      const otherPurpose = signToken(secret, 'media', { u: 'alice', d: null }, new Date(Date.now() + 60_000))
      const otherSecret = signToken('another-secret', 'upload', { u: 'alice', d: null }, new Date(Date.now() + 60_000))
      for (const bad of [forged, tampered, otherPurpose, otherSecret, 'no-dot-at-all']) {
        expectError(
          await post(`${app.url}/upload/json?token=${encodeURIComponent(bad)}`, [filePart(data)]),
          401,
          'The upload token is not valid: ask for a new upload link (POST /files/upload_links).',
        )
      }
    })

    it('answers 401 for an expired token', async () => {
      const expired = signToken(secret, 'upload', { u: 'alice', d: null }, new Date(Date.now() - 1000))
      expectError(
        await post(`${app.url}/upload/json?token=${encodeURIComponent(expired)}`, [filePart(randomBytes(10))]),
        401,
        'The upload link expired: ask for a new one (POST /files/upload_links).',
      )
    })

    it('answers 403 when the folder field names another directory than the link', async () => {
      const mine = await makeDirectory(alice, 'Mine')
      const other = await makeDirectory(alice, 'Other')
      const links = await uploadLinks(app, alice, mine)
      const data = randomBytes(100)
      expectError(
        await post(links.json, [{ name: 'folder', value: other }, filePart(data, 'x.bin')]),
        403,
        `This upload link uploads into the directory "${mine}" only.`,
      )
      expectError(
        await post(root.json, [{ name: 'folder', value: other }, filePart(data, 'x.bin')]),
        403,
        'This upload link uploads into the root directory only.',
      )
      const listing = xmlOf(await alice.get(`/files/${other}`), 200)
      expect(list(listing.files.file)).toEqual([])
    })

    it('answers 404 once the directory of the link is deleted', async () => {
      const slug = await makeDirectory(alice, 'Gone soon')
      const links = await uploadLinks(app, alice, slug)
      expect((await alice.delete(`/files/${slug}`)).status).toBe(204)
      expectError(await post(links.json, [filePart(randomBytes(10), 'x.bin')]), 404, `No directory "${slug}".`)
    })

    it('answers 401 once the user is inactive, 403 once their profile lost file.create', async () => {
      const carol = await userWithFlags(app, 'carol', FLAGS)
      const links = await uploadLinks(app, carol)
      const data = randomBytes(10)
      expect((await app.client.put('/user/carol', { form: { is_active: 0 } })).status).toBe(200)
      expectError(await post(links.json, [filePart(data)]), 401, 'The user of this upload link cannot upload any more.')
      expect((await app.client.put('/user/carol', { form: { is_active: 1 } })).status).toBe(200)
      await expectFile(await post(links.json, [filePart(data, 'back.bin')]), carol, {
        name: 'back.bin',
        data,
        directory: null,
      })

      const em = app.kernel.em()
      const user = await em.findOneOrFail(UserEntity, { username: 'carol' }, { populate: ['profile'] })
      await em.nativeUpdate(ProfileEntity, { id: user.profile.id }, { permissions: ['file.delete'] })
      expectError(
        await post(links.json, [filePart(data)]),
        403,
        'The user of this upload link no longer holds the "file.create" permission of their profile.',
      )
    })
  })
})
