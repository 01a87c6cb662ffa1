import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { type XmlObject, text } from '../../helpers/xml.js'
import { INVALID, expectError, xmlOf } from '../identity/permissions.fixtures.js'
import {
  PNG,
  type SeenEvent,
  countRows,
  fileEventRecorder,
  fileRow,
  makeDirectory,
  other,
  pendingPieces,
  storedBytes,
  storedKeys,
  upload,
  usedSpace,
} from './files.helpers.js'

const JSON_TYPE = 'application/json; charset=utf-8'

describe('chunked uploads (chunk, chunks)', () => {
  let app: TestApp
  let alice: DigestClient
  let events: SeenEvent[]

  beforeAll(async () => {
    const recorder = fileEventRecorder()
    events = recorder.events
    app = await startApp({ plugins: [recorder.plugin] })
    alice = await app.createUser({ username: 'alice' })
  })
  afterAll(async () => app?.close())

  /** Sends one piece, as chunking browser libraries do: a part named `blob` and the real name in `name`. */
  const piece = (
    data: Buffer,
    chunk: number | string,
    chunks: number | string,
    name = 'movie.bin',
    extra: Record<string, string> = {},
    client: DigestClient = alice,
  ): Promise<Response> =>
    upload(client, data, { filename: 'blob', fields: { name, chunk: String(chunk), chunks: String(chunks), ...extra } })

  /** Checks an intermediate answer: JSON, exactly `{chunk, chunks, bytes}`. */
  function expectProgress(res: Response, chunk: number, chunks: number, bytes: number): void {
    expect(res.status, res.body).toBe(200)
    expect(res.headers['content-type']).toBe(JSON_TYPE)
    expect(res.headers['x-api-version']).toBe('2.14.3')
    expect(res.body).toBe(JSON.stringify({ chunk, chunks, bytes }))
  }

  /** The file the last piece answered, with its stored bytes. */
  async function finished(res: Response): Promise<{ file: XmlObject; bytes: Buffer }> {
    const file = xmlOf(res, 200).file as XmlObject
    const row = (await fileRow(app, text(file.slug)))!
    return { file, bytes: await storedBytes(app, row.storageKey) }
  }

  it('3 pieces: JSON progress for the first two, the file XML for the last, the bytes in order', async () => {
    const parts = [other(1000), other(700), other(33)]
    const keysBefore = await storedKeys(app)
    const usedBefore = await usedSpace(app)
    events.length = 0
    expectProgress(await piece(parts[0]!, 0, 3), 0, 3, 1000)
    expectProgress(await piece(parts[1]!, 1, 3), 1, 3, 1700)
    // Pieces are stored while the upload is under way, but no file exists yet.
    expect((await storedKeys(app)).length).toBe(keysBefore.length + 2)
    expect(await countRows(app, 'pending_uploads')).toBe(1)
    expect(await usedSpace(app)).toBe(usedBefore)
    expect(events).toEqual([])
    const last = await piece(parts[2]!, 2, 3)
    const { file, bytes } = await finished(last)
    expect(Buffer.compare(bytes, Buffer.concat(parts))).toBe(0)
    expect([text(file.name), text(file.size), text(file.type), text(file.encoding_status)]).toEqual([
      'movie.bin',
      '1733',
      'other',
      '0',
    ])
    expect(file.directory['@href']).toBe(`${app.url}/files`)
    // The pieces are gone: only the assembled file remains; nothing pending, nothing in the trash.
    const row = (await fileRow(app, text(file.slug)))!
    expect(await storedKeys(app)).toEqual([...keysBefore, row.storageKey].sort())
    expect(await countRows(app, 'pending_uploads')).toBe(0)
    expect(await countRows(app, 'storage_trash')).toBe(0)
    expect(await usedSpace(app)).toBe(usedBefore + 1733)
    expect(events.map((e) => [e.event, e.slugs])).toEqual([['file.uploaded', [text(file.slug)]]])
  })

  it('the type is sniffed from the assembled file; the name is the name field or the part file name', async () => {
    const head = PNG.subarray(0, 10)
    const tail = PNG.subarray(10)
    expectProgress(await upload(alice, head, { filename: 'pic.png', fields: { chunk: '0', chunks: '2' } }), 0, 2, 10)
    const res = await upload(alice, tail, { filename: 'pic.png', fields: { chunk: '1', chunks: '2' } })
    const { file, bytes } = await finished(res)
    expect([text(file.name), text(file.type)]).toEqual(['pic.png', 'image'])
    expect(bytes).toEqual(PNG)
  })

  it('a repeated piece replaces the earlier one; the final content uses the replacement', async () => {
    const a = other(400)
    const b1 = other(300)
    const b2 = other(250)
    const c = other(100)
    expectProgress(await piece(a, 0, 3, 'repeat.bin'), 0, 3, 400)
    expectProgress(await piece(b1, 1, 3, 'repeat.bin'), 1, 3, 700)
    const keys = await storedKeys(app)
    expectProgress(await piece(b2, 1, 3, 'repeat.bin'), 1, 3, 650)
    // The replaced piece left storage.
    expect((await storedKeys(app)).length).toBe(keys.length)
    // Piece 0 again, same count: replaced too, the upload goes on.
    const a2 = other(410)
    expectProgress(await piece(a2, 0, 3, 'repeat.bin'), 0, 3, 660)
    const { bytes } = await finished(await piece(c, 2, 3, 'repeat.bin'))
    expect(bytes).toEqual(Buffer.concat([a2, b2, c]))
  })

  it('pieces go in order: a gap is refused (412), what was received stays, and the upload continues', async () => {
    const parts = [other(200), other(200), other(200)]
    expectProgress(await piece(parts[0]!, 0, 3, 'order.bin'), 0, 3, 200)
    const keys = await storedKeys(app)
    expectError(await piece(parts[2]!, 2, 3, 'order.bin'), 412, INVALID, {
      chunk: 'piece 1 is expected next (pieces go in order)',
    })
    expect(await storedKeys(app)).toEqual(keys)
    expectProgress(await piece(parts[1]!, 1, 3, 'order.bin'), 1, 3, 400)
    const { bytes } = await finished(await piece(parts[2]!, 2, 3, 'order.bin'))
    expect(bytes).toEqual(Buffer.concat(parts))
  })

  it('a piece after 0 with no upload under way is refused; so is the last piece repeated after completion', async () => {
    const keys = await storedKeys(app)
    expectError(await piece(other(10), 1, 3, 'never-started.bin'), 412, INVALID, {
      chunk: 'no upload of "never-started.bin" is under way: start with piece 0',
    })
    expect(await storedKeys(app)).toEqual(keys)
    expectProgress(await piece(other(10), 0, 2, 'done.bin'), 0, 2, 10)
    expect((await piece(other(10), 1, 2, 'done.bin')).status).toBe(200)
    const after = await storedKeys(app)
    expectError(await piece(other(10), 1, 2, 'done.bin'), 412, INVALID, {
      chunk: 'no upload of "done.bin" is under way: start with piece 0',
    })
    expect(await storedKeys(app)).toEqual(after)
  })

  it('chunk and chunks: both or neither, whole numbers, 0 <= chunk < chunks; 412 naming each field, nothing kept', async () => {
    const keys = await storedKeys(app)
    const files = await countRows(app, 'files')
    const cases: [Record<string, string>, Record<string, string>][] = [
      [{ chunk: '3', chunks: '3' }, { chunk: 'must be less than chunks (3): pieces count from 0' }],
      [{ chunk: '7', chunks: '3' }, { chunk: 'must be less than chunks (3): pieces count from 0' }],
      [{ chunk: '-1', chunks: '3' }, { chunk: 'must be a whole number from 0' }],
      [{ chunk: 'one', chunks: '3' }, { chunk: 'must be a whole number from 0' }],
      [{ chunk: '1.5', chunks: '3' }, { chunk: 'must be a whole number from 0' }],
      [{ chunk: '0', chunks: 'three' }, { chunks: 'must be a whole number from 1 to 10000' }],
      [{ chunk: '0', chunks: '0' }, { chunks: 'must be a whole number from 1 to 10000' }],
      [{ chunk: '0', chunks: '-2' }, { chunks: 'must be a whole number from 1 to 10000' }],
      [{ chunk: '0', chunks: '10001' }, { chunks: 'must be a whole number from 1 to 10000' }],
      [
        { chunk: 'x', chunks: 'y' },
        { chunks: 'must be a whole number from 1 to 10000', chunk: 'must be a whole number from 0' },
      ],
      [{ chunk: '0' }, { chunks: 'is required with chunk: send the number of pieces' }],
      [{ chunks: '3' }, { chunk: 'is required with chunks: send the index of this piece, from 0' }],
      [
        { chunk: '', chunks: '' },
        { chunks: 'must be a whole number from 1 to 10000', chunk: 'must be a whole number from 0' },
      ],
    ]
    for (const [fields, errors] of cases) {
      expectError(await upload(alice, other(20), { filename: 'bad.bin', fields }), 412, INVALID, errors)
    }
    expect(await storedKeys(app)).toEqual(keys)
    expect(await countRows(app, 'files')).toBe(files)
    expect(await countRows(app, 'pending_uploads')).toBe(0)
  })

  it('chunks=1: the only piece is the whole file, answered as XML at once', async () => {
    const data = other(77)
    const { file, bytes } = await finished(await piece(data, 0, 1, 'single.bin'))
    expect(text(file.name)).toBe('single.bin')
    expect(bytes).toEqual(data)
    expect(await countRows(app, 'pending_uploads')).toBe(0)
  })

  it('piece 0 with another chunks count starts over; a later piece with another count is refused', async () => {
    expectProgress(await piece(other(100), 0, 3, 'restart.bin'), 0, 3, 100)
    expectProgress(await piece(other(100), 1, 3, 'restart.bin'), 1, 3, 200)
    const before = (await pendingPieces(app)).flat()
    expect(before).toHaveLength(2)
    const fresh = [other(60), other(40)]
    expectProgress(await piece(fresh[0]!, 0, 2, 'restart.bin'), 0, 2, 60)
    // The old pieces left storage.
    const keys = await storedKeys(app)
    for (const key of before) expect(keys).not.toContain(key)
    expectError(await piece(other(40), 1, 3, 'restart.bin'), 412, INVALID, {
      chunks: 'this upload was started with 2 pieces',
    })
    const { bytes } = await finished(await piece(fresh[1]!, 1, 2, 'restart.bin'))
    expect(bytes).toEqual(Buffer.concat(fresh))
  })

  it('uploads of different names, or into a folder, go on side by side', async () => {
    const folder = await makeDirectory(alice, 'Chunks')
    const x = [other(30), other(31)]
    const y = [other(40), other(41)]
    expectProgress(await piece(x[0]!, 0, 2, 'x.bin', { folder }), 0, 2, 30)
    expectProgress(await piece(y[0]!, 0, 2, 'y.bin'), 0, 2, 40)
    // Later pieces need not repeat the folder: the upload keeps the one it started with.
    const fx = await finished(await piece(x[1]!, 1, 2, 'x.bin'))
    const fy = await finished(await piece(y[1]!, 1, 2, 'y.bin'))
    expect(fx.bytes).toEqual(Buffer.concat(x))
    expect(fy.bytes).toEqual(Buffer.concat(y))
    expect(fx.file.directory['@href']).toBe(`${app.url}/files/${folder}`)
    expect(fy.file.directory['@href']).toBe(`${app.url}/files`)
    // Another user's upload of the same name is theirs alone.
    const bob = await app.createUser({ username: 'bob' })
    expectProgress(await piece(other(5), 0, 2, 'shared.bin'), 0, 2, 5)
    expectError(await piece(other(5), 1, 2, 'shared.bin', {}, bob), 412, INVALID, {
      chunk: 'no upload of "shared.bin" is under way: start with piece 0',
    })
    expect((await piece(other(5), 1, 2, 'shared.bin')).status).toBe(200)
  })
})
