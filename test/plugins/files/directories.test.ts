import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDirectory } from '../../../plugins/files/directory.service.js'
import { UserEntity } from '../../../plugins/identity/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { multipartRequest } from '../../helpers/multipart.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { DECLARATION, INVALID, NEEDS, expectError, userWithFlags, xmlOf } from '../identity/permissions.fixtures.js'
import {
  MP4,
  PDF,
  PNG,
  STORE_ONLY,
  countRows,
  expectKeys,
  fileEventRecorder,
  fileRequest,
  fileRow,
  filesDeps,
  makeDirectory,
  pendingPieces,
  type SeenEvent,
  storedKeys,
  uploaded,
  usedSpace,
} from './files.helpers.js'

const FILE_SUMMARY_KEYS = ['@href', 'slug', 'name', 'size', 'type', 'encoding_status', 'encoding_progress', 'thumbnail']

describe('directories', () => {
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

  const dirUrl = (slug?: string): string => (slug ? `${app.url}/files/${slug}` : `${app.url}/files`)

  it('GET /files: a new user has an empty root named "/" with no parent link', async () => {
    const res = await alice.get('/files')
    xmlOf(res, 200)
    expect(res.body).toBe(`${DECLARATION}<files href="${dirUrl()}"><name><![CDATA[/]]></name></files>`)
  })

  it('POST /files with only a name makes a directory in the root (201, parent link to /files)', async () => {
    const res = await alice.post('/files', { form: { name: 'Holidays' } })
    xmlOf(res, 201)
    expect(res.body).toBe(
      `${DECLARATION}<directory href="${dirUrl('holidays')}"><slug><![CDATA[holidays]]></slug>` +
        `<name><![CDATA[Holidays]]></name><directory href="${dirUrl()}" rel="parent"/></directory>`,
    )
    // The same through multipart, as an upload form without a file would send it.
    const multi = await alice.post('/files', multipartRequest([{ name: 'name', value: 'Holidays' }]))
    const doc = xmlOf(multi, 201).directory as XmlObject
    expect(text(doc.slug)).toBe('holidays-2')
    expect(doc.directory).toEqual({ '@href': dirUrl(), '@rel': 'parent' })
  })

  it('POST /files/<slug> makes a child with its own href and the parent link; GET shows the parent link', async () => {
    const parent = await makeDirectory(alice, 'Work')
    const res = await alice.post(`/files/${parent}`, { form: { name: 'Reports 2024' } })
    xmlOf(res, 201)
    expect(res.body).toBe(
      `${DECLARATION}<directory href="${dirUrl('reports-2024')}"><slug><![CDATA[reports-2024]]></slug>` +
        `<name><![CDATA[Reports 2024]]></name><directory href="${dirUrl(parent)}" rel="parent"/></directory>`,
    )
    const child = xmlOf(await alice.get('/files/reports-2024'), 200)
    expect(child.files).toEqual({
      '@href': dirUrl('reports-2024'),
      name: 'Reports 2024',
      directory: { '@href': dirUrl(parent), '@rel': 'parent' },
    })
    const top = xmlOf(await alice.get(`/files/${parent}`), 200).files as XmlObject
    expect(top.directory).toEqual([
      { '@href': dirUrl(), '@rel': 'parent' },
      { '@href': dirUrl('reports-2024'), slug: 'reports-2024', name: 'Reports 2024' },
    ])
  })

  it('a listing shows every subdirectory (href, slug, name) and every file with all its fields, oldest first', async () => {
    const user = await app.createUser({ username: 'lister' })
    const first = await makeDirectory(user, 'First')
    const second = await makeDirectory(user, 'Second')
    await makeDirectory(user, 'Nested', first)
    const image = await uploaded(user, PNG, { filename: 'photo.png' })
    const doc = await uploaded(user, PDF, { filename: 'report.pdf' })
    const inside = await uploaded(user, MP4, { filename: 'clip.mp4', fields: { folder: first } })
    const res = await user.get('/files')
    const root = xmlOf(res, 200).files as XmlObject
    expectKeys(root, ['@href', 'name', 'directory', 'file'])
    expect(root['@href']).toBe(dirUrl())
    expect(text(root.name)).toBe('/')
    expect(root.directory).toEqual([
      { '@href': dirUrl(first), slug: first, name: 'First' },
      { '@href': dirUrl(second), slug: second, name: 'Second' },
    ])
    const files = list<XmlObject>(root.file)
    for (const file of files) expectKeys(file, FILE_SUMMARY_KEYS)
    expect(
      files.map((f) => [f['@href'], f.slug, f.name, f.size, f.type, f.encoding_status, f.encoding_progress]),
    ).toEqual([
      [
        `${app.url}/file/${text(image.slug)}`,
        text(image.slug),
        'photo.png',
        String(PNG.length),
        'image',
        'pending',
        '0',
      ],
      [
        `${app.url}/file/${text(doc.slug)}`,
        text(doc.slug),
        'report.pdf',
        String(PDF.length),
        'document',
        'pending',
        '0',
      ],
    ])
    expect(res.body).toContain(`<thumbnail><![CDATA[]]></thumbnail>`)
    const sub = xmlOf(await user.get(`/files/${first}`), 200).files as XmlObject
    expect(sub.directory).toEqual([
      { '@href': dirUrl(), '@rel': 'parent' },
      { '@href': dirUrl('nested'), slug: 'nested', name: 'Nested' },
    ])
    expect(list<XmlObject>(sub.file).map((f) => f.slug)).toEqual([text(inside.slug)])
  })

  it('a name is required, one line, without control characters, at most 255 characters', async () => {
    const parent = await makeDirectory(alice, 'Names')
    const cases: [Record<string, string>, string][] = [
      [{}, 'is required'],
      [{ name: '   ' }, 'is required'],
      [{ name: 'x'.repeat(256) }, 'must be at most 255 characters'],
      [{ name: 'bell\u0007' }, 'must not contain control characters'],
      [{ name: 'two\nlines' }, 'must be one line (no tabs or line breaks)'],
      [{ name: 'carriage\rreturn' }, 'must be one line (no tabs or line breaks)'],
      [{ name: 'a\ttab' }, 'must be one line (no tabs or line breaks)'],
    ]
    for (const [form, message] of cases) {
      expectError(await alice.post(`/files/${parent}`, { form }), 412, INVALID, { name: message })
      expectError(await alice.post('/files', { form: { ...form, name: form.name ?? '' } }), 412, INVALID, {
        name: message,
      })
    }
    expect(list(xmlOf(await alice.get(`/files/${parent}`), 200).files.directory)).toHaveLength(1)
    // Names are data: 255 characters, slashes, dots and accents are fine.
    for (const name of ['é'.repeat(255), '../..', 'a/b\\c', '<b>&amp;</b> ]]>']) {
      const res = await alice.post(`/files/${parent}`, { form: { name } })
      expect(text(xmlOf(res, 201).directory.name)).toBe(name)
    }
  })

  it('PUT renames (200); the slug stays; no name changes nothing; an empty or bad name is refused', async () => {
    const slug = await makeDirectory(alice, 'Before')
    const res = await alice.put(`/files/${slug}`, { form: { name: 'After' } })
    xmlOf(res, 200)
    expect(res.body).toBe(
      `${DECLARATION}<directory href="${dirUrl(slug)}"><slug><![CDATA[${slug}]]></slug>` +
        `<name><![CDATA[After]]></name><directory href="${dirUrl()}" rel="parent"/></directory>`,
    )
    expect(text(xmlOf(await alice.get(`/files/${slug}`), 200).files.name)).toBe('After')
    expect(text(xmlOf(await alice.put(`/files/${slug}`, { form: {} }), 200).directory.name)).toBe('After')
    expectError(await alice.put(`/files/${slug}`, { form: { name: '' } }), 412, INVALID, { name: 'cannot be empty' })
    expectError(await alice.put(`/files/${slug}`, { form: { name: 'y'.repeat(256) } }), 412, INVALID, {
      name: 'must be at most 255 characters',
    })
    expectError(await alice.put(`/files/${slug}`, { form: { name: 'a\nb' } }), 412, INVALID, {
      name: 'must be one line (no tabs or line breaks)',
    })
    expect(text(xmlOf(await alice.get(`/files/${slug}`), 200).files.name)).toBe('After')
    // A child's parent link follows the parent's slug, not its name.
    const child = await makeDirectory(alice, 'Child', slug)
    await alice.put(`/files/${slug}`, { form: { name: 'Renamed again' } })
    expect(xmlOf(await alice.get(`/files/${child}`), 200).files.directory).toEqual({
      '@href': dirUrl(slug),
      '@rel': 'parent',
    })
  })

  it('DELETE removes the subtree, its files, chunked uploads into it and their bytes; used_space drops', async () => {
    const user = await app.createUser({ username: 'deleter' })
    const top = await makeDirectory(user, 'Top')
    const mid = await makeDirectory(user, 'Mid', top)
    const leaf = await makeDirectory(user, 'Leaf', mid)
    const kept = await makeDirectory(user, 'Kept')
    const inTop = await uploaded(user, PNG, { filename: 'a.png', fields: { folder: top } })
    const inLeaf = await uploaded(user, PDF, { filename: 'b.pdf', fields: { folder: leaf } })
    const inRoot = await uploaded(user, MP4, { filename: 'c.mp4' })
    const inKept = await uploaded(user, PNG, { filename: 'd.png', fields: { folder: kept } })
    // A chunked upload under way into the middle directory: its first piece is stored.
    const piece = await user.post(
      '/files',
      fileRequest(Buffer.alloc(100, 1), { filename: 'big.bin', fields: { folder: mid, chunk: '0', chunks: '3' } }),
    )
    expect(piece.status).toBe(200)
    const storage = app.kernel.services.ports.get('storage')
    const gone = [(await fileRow(app, text(inTop.slug)))!, (await fileRow(app, text(inLeaf.slug)))!]
    const stay = [(await fileRow(app, text(inRoot.slug)))!, (await fileRow(app, text(inKept.slug)))!]
    const keysBefore = await storedKeys(app)
    const pieces = (await pendingPieces(app)).flat()
    const usedBefore = await usedSpace(app)
    events.length = 0

    expect((await user.delete(`/files/${top}`)).status).toBe(204)

    for (const slug of [top, mid, leaf]) {
      expectError(await user.get(`/files/${slug}`), 404, `No directory "${slug}".`)
    }
    for (const file of gone) {
      expectError(await user.get(`/file/${file.slug}`), 404, `No file "${file.slug}".`)
      expect(await storage.stat(file.storageKey)).toBeNull()
    }
    for (const file of stay) {
      expect((await user.get(`/file/${file.slug}`)).status).toBe(200)
      expect(await storage.stat(file.storageKey)).not.toBeNull()
    }
    expect(await usedSpace(app)).toBe(usedBefore - PNG.length - PDF.length)
    // Exactly the two files and the piece went from storage; the trash is empty again.
    expect(await storedKeys(app)).toEqual(
      keysBefore.filter((key) => !gone.some((f) => key.startsWith(f.storagePrefix)) && !pieces.includes(key)),
    )
    expect(pieces).toHaveLength(1)
    expect(await countRows(app, 'pending_uploads')).toBe(0)
    expect(await countRows(app, 'storage_trash')).toBe(0)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ event: 'file.deleted', inTransaction: true })
    expect(events[0]!.slugs.sort()).toEqual(gone.map((f) => f.slug).sort())
    const root = xmlOf(await user.get('/files'), 200).files as XmlObject
    expect(root.directory).toEqual({ '@href': dirUrl(kept), slug: kept, name: 'Kept' })
  })

  it('GET /search/directories: substring, any case (accents included), own directories only, paginated', async () => {
    const user = await app.createUser({ username: 'searcher' })
    const eco = await makeDirectory(user, 'École 2024')
    const eco2 = await makeDirectory(user, 'Vieille école', eco)
    const other = await makeDirectory(user, 'Music')
    await makeDirectory(bob, 'École de Bob')
    const names = async (query: string): Promise<string[]> => {
      const res = await user.get(`/search/directories?name=${encodeURIComponent(query)}`)
      const doc = xmlOf(res, 200).directories as XmlObject
      expect(doc['@href']).toBe(`${app.url}/search/directories?name=${encodeURIComponent(query.trim())}`)
      return list<XmlObject>(doc.directory).map((d) => {
        expectKeys(d, ['@href', 'name'])
        expect(d['@href']).toBe(dirUrl(d['@href'].split('/').pop()))
        return text(d.name)
      })
    }
    expect(await names('ÉCOLE')).toEqual(['École 2024', 'Vieille école'])
    expect(await names('éco')).toEqual(['École 2024', 'Vieille école'])
    expect(await names('  2024 ')).toEqual(['École 2024'])
    expect(await names('usi')).toEqual(['Music'])
    expect(await names('Bob')).toEqual([])
    expect(await names('%')).toEqual([])
    const hrefs = list<XmlObject>(xmlOf(await user.get('/search/directories?name=e'), 200).directories.directory).map(
      (d) => d['@href'],
    )
    expect(hrefs).toEqual([dirUrl(eco), dirUrl(eco2)])
    expect(other).toBe('music')

    const whole = await user.get('/search/directories?name=e')
    expect([whole.headers['content-range'], whole.headers['accept-ranges']]).toEqual(['entities 0-1/2', 'entities'])
    const none = await user.get('/search/directories?name=nothing-like-this')
    expect(none.headers['content-range']).toBe('entities */0')
    expect(none.body).toBe(`${DECLARATION}<directories href="${app.url}/search/directories?name=nothing-like-this"/>`)
    const page = await user.get('/search/directories?name=e', { headers: { range: 'entities=1-5' } })
    expect(page.headers['content-range']).toBe('entities 1-1/2')
    expect(list<XmlObject>(xmlOf(page, 200).directories.directory).map((d) => text(d.name))).toEqual(['Vieille école'])
    const first = await user.get('/search/directories?name=i', { headers: { range: 'entities=0-0' } })
    expect(first.headers['content-range']).toBe('entities 0-0/2')
    expect((await user.get('/search/directories?name=e', { headers: { range: 'entities=5-9' } })).status).toBe(200)
    expect((await user.get('/search/directories?name=e', { headers: { range: 'bytes=0-1' } })).status).toBe(416)

    for (const query of ['', '?name=', '?name=%20%20', '?other=x']) {
      expectError(await user.get(`/search/directories${query}`), 412, INVALID, {
        name: 'is required: send part of a directory name',
      })
    }
  })

  it("another user's directory is 404 for every method, the installation administrator included", async () => {
    const slug = await makeDirectory(alice, 'Private')
    const message = `No directory "${slug}".`
    for (const client of [bob, app.client]) {
      expectError(await client.get(`/files/${slug}`), 404, message)
      expectError(await client.post(`/files/${slug}`, { form: { name: 'Intruder' } }), 404, message)
      expectError(await client.put(`/files/${slug}`, { form: { name: 'Hacked' } }), 404, message)
      expectError(await client.delete(`/files/${slug}`), 404, message)
      expect(list(xmlOf(await client.get('/search/directories?name=Private'), 200).directories.directory)).toEqual([])
    }
    expectError(await alice.get('/files/no-such-directory'), 404, 'No directory "no-such-directory".')
    const doc = xmlOf(await alice.get(`/files/${slug}`), 200).files as XmlObject
    expect(text(doc.name)).toBe('Private')
    expect(doc.directory).toEqual({ '@href': dirUrl(), '@rel': 'parent' })
  })

  it('profile flags: folder.create to create, rename and delete; file.delete too to delete', async () => {
    const em = app.kernel.em()
    const ownDirectory = async (username: string, name: string): Promise<string> => {
      const user = await em.findOneOrFail(UserEntity, { username })
      return (await createDirectory(filesDeps(app.kernel), app.kernel.em(), user.id, null, name)).slug
    }
    const reader = await userWithFlags(app, 'reader', [])
    const readerDir = await ownDirectory('reader', 'Reader dir')
    expect(xmlOf(await reader.get(`/files/${readerDir}`), 200).files.name).toBe('Reader dir')
    expect(xmlOf(await reader.get('/search/directories?name=reader'), 200).directories.directory.name).toBe(
      'Reader dir',
    )
    expectError(await reader.post('/files', { form: { name: 'New' } }), 403, NEEDS('folder.create'))
    expectError(await reader.post(`/files/${readerDir}`, { form: { name: 'New' } }), 403, NEEDS('folder.create'))
    expectError(await reader.put(`/files/${readerDir}`, { form: { name: 'New' } }), 403, NEEDS('folder.create'))
    expectError(await reader.delete(`/files/${readerDir}`), 403, NEEDS('folder.create'))

    const organiser = await userWithFlags(app, 'organiser', ['folder.create'])
    const sub = await makeDirectory(organiser, 'Organised')
    expect((await organiser.put(`/files/${sub}`, { form: { name: 'Organised twice' } })).status).toBe(200)
    expectError(await organiser.delete(`/files/${sub}`), 403, NEEDS('file.delete'))

    const remover = await userWithFlags(app, 'remover', ['file.delete'])
    const removerDir = await ownDirectory('remover', 'Remover dir')
    expectError(await remover.delete(`/files/${removerDir}`), 403, NEEDS('folder.create'))

    const both = await userWithFlags(app, 'both', ['folder.create', 'file.delete'])
    const bothDir = await makeDirectory(both, 'Both')
    expect((await both.delete(`/files/${bothDir}`)).status).toBe(204)
    // Nothing was changed by the refusals.
    expect(text(xmlOf(await reader.get(`/files/${readerDir}`), 200).files.name)).toBe('Reader dir')
    expect(text(xmlOf(await organiser.get(`/files/${sub}`), 200).files.name)).toBe('Organised twice')
    expect(list(xmlOf(await reader.get('/files'), 200).files.directory)).toHaveLength(1)
  })
})
