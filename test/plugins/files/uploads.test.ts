import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { DECLARATION, INVALID, NEEDS, expectError, userWithFlags, xmlOf } from '../identity/permissions.fixtures.js'
import {
  MP4,
  PDF,
  PNG,
  SOURCE_KEY,
  STORE_ONLY,
  countRows,
  fileEventRecorder,
  fileRow,
  makeDirectory,
  other,
  type SeenEvent,
  storedBytes,
  storedKeys,
  upload,
  uploaded,
  usedSpace,
} from './files.helpers.js'

const NO_FILE = 'send the file as the multipart file part "path" (or "file", "file[path]")'

describe('uploads (POST /files, multipart)', () => {
  let app: TestApp
  let alice: DigestClient
  let bob: DigestClient
  let events: SeenEvent[]

  beforeAll(async () => {
    const recorder = fileEventRecorder()
    events = recorder.events
    app = await startApp({ plugins: [recorder.plugin], config: STORE_ONLY })
    alice = await app.createUser({ username: 'alice' })
    bob = await app.createUser({ username: 'bob' })
  })
  afterAll(async () => app?.close())

  /** Checks that a request stored nothing: same keys, same rows, same used_space. */
  async function nothingStored(run: () => Promise<void>): Promise<void> {
    const keys = await storedKeys(app)
    const files = await countRows(app, 'files')
    const used = await usedSpace(app)
    events.length = 0
    await run()
    expect(await storedKeys(app)).toEqual(keys)
    expect(await countRows(app, 'files')).toBe(files)
    expect(await usedSpace(app)).toBe(used)
    expect(events).toEqual([])
  }

  it('answers 200 with the file info, encoding_status as the code 0; the file is in the root', async () => {
    const res = await upload(alice, PNG, { filename: 'Holiday photo.png' })
    xmlOf(res, 200)
    expect(res.body).toBe(
      `${DECLARATION}<file href="${app.url}/file/holiday-photo-png"><slug><![CDATA[holiday-photo-png]]></slug>` +
        `<user href="${app.url}/user/alice" rel="owner"/><name><![CDATA[Holiday photo.png]]></name>` +
        `<size>${PNG.length}</size><type><![CDATA[image]]></type><encoding_status>0</encoding_status>` +
        `<encoding_progress>0</encoding_progress><directory href="${app.url}/files" rel="parent"/>` +
        `<thumbnail><![CDATA[]]></thumbnail><embed><![CDATA[]]></embed><metadata/><subtitles/></file>`,
    )
    // File info shows the word.
    expect(text(xmlOf(await alice.get('/file/holiday-photo-png'), 200).file.encoding_status)).toBe('pending')
    const root = xmlOf(await alice.get('/files'), 200).files as XmlObject
    expect(list<XmlObject>(root.file).map((f) => text(f.slug))).toContain('holiday-photo-png')
  })

  it('takes the file from the fields path, file and file[path]; other file parts are ignored', async () => {
    for (const field of ['path', 'file', 'file[path]']) {
      const data = other(64)
      const file = await uploaded(alice, data, { field, filename: `via ${field}.bin` })
      expect(text(file.name)).toBe(`via ${field}.bin`)
      expect(await storedBytes(app, (await fileRow(app, text(file.slug)))!.storageKey)).toEqual(data)
    }
    // A stray file part (another field, or a second file) is read and dropped.
    const first = other(50)
    const res = await alice.post(
      '/files',
      multipartRequest([
        { name: 'attachment', filename: 'stray.bin', data: other(70) },
        { name: 'path', filename: 'first.bin', data: first },
        { name: 'file', filename: 'second.bin', data: other(90) },
      ]),
    )
    const file = xmlOf(res, 200).file as XmlObject
    expect([text(file.name), text(file.size)]).toEqual(['first.bin', '50'])
    const row = (await fileRow(app, text(file.slug)))!
    expect(await storedBytes(app, row.storageKey)).toEqual(first)
    const keys = await storedKeys(app)
    expect(keys.filter((key) => key.startsWith(row.storagePrefix))).toEqual([row.storageKey])
  })

  it('the name field, when sent, names the file instead of the part file name', async () => {
    const file = await uploaded(alice, PDF, { filename: 'blob', fields: { name: 'Contract.pdf' } })
    expect(text(file.name)).toBe('Contract.pdf')
    const after = await uploaded(alice, PDF, { filename: 'blob', fields: { name: 'After.pdf' }, fieldsAfter: true })
    expect(text(after.name)).toBe('After.pdf')
  })

  it('decides the type from the content, never from the name', async () => {
    const cases: [Buffer, string, string, string][] = [
      [PNG, 'movie.mp4', 'image', 'image/png'],
      [PDF, 'picture.png', 'document', 'application/pdf'],
      [MP4, 'report.pdf', 'video', 'video/mp4'],
      [other(500), 'video.mp4', 'other', 'application/octet-stream'],
      [Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nHello\n'), 'subtitles.png', 'document', 'text/plain'],
    ]
    for (const [data, filename, type, mimeType] of cases) {
      const file = await uploaded(alice, data, { filename })
      expect([text(file.name), text(file.type)]).toEqual([filename, type])
      expect((await fileRow(app, text(file.slug)))!.mimeType).toBe(mimeType)
    }
  })

  it('stores the exact bytes under a generated key, counts them in used_space, and announces file.uploaded once', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17)
    data[0] = 0
    const before = await usedSpace(app)
    events.length = 0
    const file = await uploaded(alice, data, { filename: 'big.bin' })
    const row = (await fileRow(app, text(file.slug)))!
    expect(row.storageKey).toMatch(SOURCE_KEY)
    expect(row.storagePrefix).toBe(row.storageKey.replace(/source$/, ''))
    expect(row.size).toBe(data.length)
    expect(row.storedBytes).toBe(data.length)
    expect(Buffer.compare(await storedBytes(app, row.storageKey), data)).toBe(0)
    expect(await app.kernel.services.ports.get('storage').stat(row.storageKey)).toMatchObject({ size: data.length })
    expect(await usedSpace(app)).toBe(before + data.length)
    expect(events).toHaveLength(1)
    // In the transaction that records the file: its encoding is queued with it (the outbox).
    expect(events[0]).toMatchObject({ event: 'file.uploaded', slugs: [row.slug], inTransaction: true })
    expect(events[0]!.files[0]).toEqual({
      id: row.id,
      slug: row.slug,
      name: 'big.bin',
      platformId: row.platformId,
      type: 'other',
      size: data.length,
    })
    expect(row).toMatchObject({ encodingStatus: 'pending', type: 'other', username: 'alice', directoryId: null })
  })

  it('folder puts the file into one of the uploader’s directories; an unknown or foreign one is a 412', async () => {
    const folder = await makeDirectory(alice, 'Uploads')
    const sub = await makeDirectory(alice, 'Deeper', folder)
    for (const target of [folder, sub]) {
      const file = await uploaded(alice, PNG, { filename: 'in-folder.png', fields: { folder: target } })
      expect(file.directory).toEqual({ '@href': `${app.url}/files/${target}`, '@rel': 'parent' })
      const listing = xmlOf(await alice.get(`/files/${target}`), 200).files as XmlObject
      expect(list<XmlObject>(listing.file).map((f) => text(f.slug))).toEqual([text(file.slug)])
    }
    // Sent after the file part, too.
    const after = await uploaded(alice, PNG, { filename: 'late.png', fields: { folder }, fieldsAfter: true })
    expect(after.directory['@href']).toBe(`${app.url}/files/${folder}`)
    // Empty: the root.
    expect((await uploaded(alice, PNG, { fields: { folder: '' } })).directory['@href']).toBe(`${app.url}/files`)

    const bobs = await makeDirectory(bob, 'Bob only')
    for (const slug of ['no-such-folder', bobs]) {
      await nothingStored(async () => {
        expectError(await upload(alice, PNG, { fields: { folder: slug } }), 412, INVALID, {
          folder: `you have no directory "${slug}"`,
        })
        expectError(await upload(alice, PNG, { fields: { folder: slug }, fieldsAfter: true }), 412, INVALID, {
          folder: `you have no directory "${slug}"`,
        })
      })
    }
    await nothingStored(async () => {
      const res = await alice.post(
        '/files',
        multipartRequest([
          { name: 'folder[]', value: folder },
          { name: 'path', filename: 'x.png', data: PNG },
        ]),
      )
      expectError(res, 412, INVALID, { folder: 'must be a single directory slug' })
    })
  })

  it('a 0-byte file is refused (412 on path) and nothing is stored', async () => {
    await nothingStored(async () => {
      expectError(await upload(alice, Buffer.alloc(0), { filename: 'empty.txt' }), 412, INVALID, {
        path: 'the file is empty (0 bytes)',
      })
    })
  })

  it('a request without a file part is a 412 on path (or a directory, when it carries a name)', async () => {
    await nothingStored(async () => {
      expectError(await alice.post('/files', multipartRequest([{ name: 'folder', value: '' }])), 412, INVALID, {
        path: NO_FILE,
      })
      expectError(await alice.post('/files', multipartRequest([{ name: 'chunk', value: '0' }])), 412, INVALID, {
        path: NO_FILE,
      })
      expectError(await alice.post('/files', { form: { folder: '' } }), 412, INVALID, { path: NO_FILE })
      expectError(await alice.post('/files'), 412, INVALID, { path: NO_FILE })
      expectError(
        await alice.post('/files', multipartRequest([{ name: 'other', filename: 'x.bin', data: other(10) }])),
        412,
        INVALID,
        { path: NO_FILE },
      )
    })
  })

  it('without the file.create flag: 403 and nothing is stored; the flag alone is enough', async () => {
    const viewer = await userWithFlags(app, 'viewer', [])
    await nothingStored(async () => {
      expectError(await upload(viewer, PNG), 403, NEEDS('file.create'))
      expectError(await upload(viewer, randomBytes(2 * 1024 * 1024)), 403, NEEDS('file.create'))
    })
    const creator = await userWithFlags(app, 'creator', ['file.create'])
    expect(text((await uploaded(creator, PNG, { filename: 'ok.png' })).name)).toBe('ok.png')
  })
})
