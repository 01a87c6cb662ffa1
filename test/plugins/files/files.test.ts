import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, text } from '../../helpers/xml.js'
import { DECLARATION, INVALID, NEEDS, expectError, userWithFlags, xmlOf } from '../identity/permissions.fixtures.js'
import {
  PDF,
  PNG,
  STORE_ONLY,
  expectKeys,
  fileEventRecorder,
  fileRow,
  makeDirectory,
  type SeenEvent,
  storedBytes,
  uploaded,
  usedSpace,
} from './files.helpers.js'

const INFO_KEYS = [
  '@href',
  'slug',
  'user',
  'name',
  'size',
  'type',
  'encoding_status',
  'encoding_progress',
  'directory',
  'thumbnail',
  'embed',
  'metadata',
  'subtitles',
]

describe('files', () => {
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
    const definitions: Record<string, string>[] = [
      { name: 'Title', type: 'varchar', file_type: 'image,video' },
      { name: 'Episode', type: 'integer', file_type: 'image' },
      { name: 'Genre', type: 'choice', file_type: 'image', default_value: 'jazz,rock' },
      { name: 'Public', type: 'boolean', file_type: 'video,image' },
      { name: 'Pages', type: 'integer', file_type: 'document' },
    ]
    for (const form of definitions) {
      expect((await app.client.post('/platform/default/metadata', { form })).status).toBe(201)
    }
  })
  afterAll(async () => app?.close())

  /** The exact file info answer of a fresh, pending file. */
  const infoBody = (slug: string, name: string, size: number, type: string, parent: string, metadata = '<metadata/>') =>
    `${DECLARATION}<file href="${app.url}/file/${slug}"><slug><![CDATA[${slug}]]></slug>` +
    `<user href="${app.url}/user/alice" rel="owner"/><name><![CDATA[${name}]]></name><size>${size}</size>` +
    `<type><![CDATA[${type}]]></type><encoding_status><![CDATA[pending]]></encoding_status>` +
    `<encoding_progress>0</encoding_progress><directory href="${parent}" rel="parent"/>` +
    `<thumbnail><![CDATA[]]></thumbnail><embed><![CDATA[]]></embed>${metadata}<subtitles/></file>`

  it('GET /file/<slug>: every field, the owner link, the parent directory link', async () => {
    const folder = await makeDirectory(alice, 'Pictures')
    const slug = text((await uploaded(alice, PNG, { filename: 'Beach.png', fields: { folder } })).slug)
    expect(slug).toBe('beach-png')
    const res = await alice.get(`/file/${slug}`)
    const file = xmlOf(res, 200).file as XmlObject
    expectKeys(file, INFO_KEYS)
    expect(res.body).toBe(infoBody(slug, 'Beach.png', PNG.length, 'image', `${app.url}/files/${folder}`))
    const inRoot = text((await uploaded(alice, PDF, { filename: 'notes.pdf' })).slug)
    expect((await alice.get(`/file/${inRoot}`)).body).toBe(
      infoBody(inRoot, 'notes.pdf', PDF.length, 'document', `${app.url}/files`),
    )
  })

  it('GET /file/<slug>/status: only encoding_status (the word) and encoding_progress', async () => {
    const slug = text((await uploaded(alice, PNG, { filename: 'status.png' })).slug)
    const res = await alice.get(`/file/${slug}/status`)
    expectKeys(xmlOf(res, 200).file as XmlObject, ['@href', 'encoding_status', 'encoding_progress'])
    expect(res.body).toBe(
      `${DECLARATION}<file href="${app.url}/file/${slug}"><encoding_status><![CDATA[pending]]></encoding_status>` +
        `<encoding_progress>0</encoding_progress></file>`,
    )
  })

  it('PUT /file/<slug> renames (200); the slug stays; a bad name is refused and changes nothing', async () => {
    const slug = text((await uploaded(alice, PNG, { filename: 'old.png' })).slug)
    const res = await alice.put(`/file/${slug}`, { form: { name: 'New name.png' } })
    expect(res.body).toBe(infoBody(slug, 'New name.png', PNG.length, 'image', `${app.url}/files`))
    expect(xmlOf(res, 200).file.slug).toBe(slug)
    expect(text(xmlOf(await alice.get(`/file/${slug}`), 200).file.name)).toBe('New name.png')
    expectError(await alice.put(`/file/${slug}`, { form: { name: '' } }), 412, INVALID, { name: 'cannot be empty' })
    expectError(await alice.put(`/file/${slug}`, { form: { name: 'n'.repeat(256) } }), 412, INVALID, {
      name: 'must be at most 255 characters',
    })
    expectError(await alice.put(`/file/${slug}`, { form: { name: 'a\nb' } }), 412, INVALID, {
      name: 'must be one line (no tabs or line breaks)',
    })
    expectError(await alice.put(`/file/${slug}`, { form: { name: 'a\u0001b' } }), 412, INVALID, {
      name: 'must not contain control characters',
    })
    expect(text(xmlOf(await alice.put(`/file/${slug}`, { form: {} }), 200).file.name)).toBe('New name.png')
  })

  it('PUT metadata[<name>]: typed values shown by definition slug with their name; errors name the field', async () => {
    const slug = text((await uploaded(alice, PNG, { filename: 'meta.png' })).slug)
    const put = (form: Record<string, string>) => alice.put(`/file/${slug}`, { form })
    const res = await put({
      'metadata[Title]': '  Summer <b>&</b> ]]> sun ',
      'metadata[Episode]': '+007',
      'metadata[Genre]': 'rock',
      'metadata[Public]': 'TRUE',
    })
    const metadata =
      '<metadata><title name="Title"><![CDATA[Summer <b>&</b> ]]]]><![CDATA[> sun]]></title>' +
      '<episode name="Episode">7</episode><genre name="Genre"><![CDATA[rock]]></genre>' +
      '<public name="Public">1</public></metadata>'
    expect(res.body).toBe(infoBody(slug, 'meta.png', PNG.length, 'image', `${app.url}/files`, metadata))
    xmlOf(res, 200)
    expect((await alice.get(`/file/${slug}`)).body).toBe(res.body)

    // Invalid values: one 412 naming every failing field, nothing stored.
    expectError(
      await put({
        'metadata[Episode]': 'seven',
        'metadata[Genre]': 'pop',
        'metadata[Pages]': '3',
        'metadata[Nope]': 'x',
        'metadata[Title]': 'Kept?',
      }),
      412,
      INVALID,
      {
        'metadata[Episode]': 'must be a whole number between -2147483648 and 2147483647',
        'metadata[Genre]': 'must be one of: jazz, rock',
        'metadata[Pages]': 'does not apply to image files (only to: document)',
        'metadata[Nope]': 'no metadata definition of this name on this platform',
      },
    )
    expectError(await put({ 'metadata[Public]': 'maybe' }), 412, INVALID, { 'metadata[Public]': 'must be 0 or 1' })
    expect((await alice.get(`/file/${slug}`)).body).toBe(res.body)

    // A bad name and a bad value: both listed in one answer, and neither applied.
    expectError(await put({ name: 'x'.repeat(256), 'metadata[Episode]': 'x' }), 412, INVALID, {
      name: 'must be at most 255 characters',
      'metadata[Episode]': 'must be a whole number between -2147483648 and 2147483647',
    })

    // Sent empty: cleared; other values stay; partial update.
    const cleared = await put({ 'metadata[Title]': '', 'metadata[Public]': 'false' })
    expect(xmlOf(cleared, 200).file.metadata).toEqual({
      episode: { '@name': 'Episode', '#text': '7' },
      genre: { '@name': 'Genre', '#text': 'rock' },
      public: { '@name': 'Public', '#text': '0' },
    })
    // The name changes alone.
    expect(text(xmlOf(await put({ name: 'renamed.png' }), 200).file.name)).toBe('renamed.png')
    expect(xmlOf(await alice.get(`/file/${slug}`), 200).file.metadata.episode['#text']).toBe('7')
  })

  it('renaming a definition keeps the values; deleting it removes them', async () => {
    const slug = text((await uploaded(alice, PNG, { filename: 'defs.png' })).slug)
    const put = await alice.put(`/file/${slug}`, { form: { 'metadata[Title]': 'Kept', 'metadata[Episode]': '3' } })
    expect(xmlOf(put, 200).file.metadata).toEqual({
      title: { '@name': 'Title', '#text': 'Kept' },
      episode: { '@name': 'Episode', '#text': '3' },
    })
    expect((await app.client.put('/metadata/title', { form: { name: 'Headline' } })).status).toBe(200)
    expect(xmlOf(await alice.get(`/file/${slug}`), 200).file.metadata).toEqual({
      title: { '@name': 'Headline', '#text': 'Kept' },
      episode: { '@name': 'Episode', '#text': '3' },
    })
    // The new name is the one to send now.
    expectError(await alice.put(`/file/${slug}`, { form: { 'metadata[Title]': 'x' } }), 412, INVALID, {
      'metadata[Title]': 'no metadata definition of this name on this platform',
    })
    const row = (await fileRow(app, slug))!
    const episodeId = Object.keys(row.metadata).find((key) => row.metadata[key] === 3)!
    expect((await app.client.delete('/metadata/episode')).status).toBe(204)
    expect(xmlOf(await alice.get(`/file/${slug}`), 200).file.metadata).toEqual({
      title: { '@name': 'Headline', '#text': 'Kept' },
    })
    // Gone from the row too, not only hidden.
    expect(Object.keys((await fileRow(app, slug))!.metadata)).not.toContain(episodeId)
    expect(Object.keys((await fileRow(app, slug))!.metadata)).toHaveLength(1)
    expect((await app.client.put('/metadata/title', { form: { name: 'Title' } })).status).toBe(200)
  })

  it('DELETE /file/<slug>: 204, the bytes leave storage, used_space drops, file.deleted inside the transaction', async () => {
    const slug = text((await uploaded(alice, PDF, { filename: 'gone.pdf' })).slug)
    const row = (await fileRow(app, slug))!
    const storage = app.kernel.services.ports.get('storage')
    expect(await storedBytes(app, row.storageKey)).toEqual(PDF)
    const before = await usedSpace(app)
    events.length = 0
    const res = await alice.delete(`/file/${slug}`)
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expect(await storage.stat(row.storageKey)).toBeNull()
    expect(await usedSpace(app)).toBe(before - PDF.length)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ event: 'file.deleted', slugs: [slug], inTransaction: true })
    expect(events[0]!.files[0]).toMatchObject({ slug, name: 'gone.pdf', size: PDF.length, username: 'alice' })
    expectError(await alice.get(`/file/${slug}`), 404, `No file "${slug}".`)
    expectError(await alice.delete(`/file/${slug}`), 404, `No file "${slug}".`)
    expect(await fileRow(app, slug)).toBeUndefined()
  })

  it("another user's file is 404 for GET, status, PUT and DELETE, the installation administrator included", async () => {
    const slug = text((await uploaded(alice, PNG, { filename: 'mine.png' })).slug)
    const message = `No file "${slug}".`
    for (const client of [bob, app.client]) {
      expectError(await client.get(`/file/${slug}`), 404, message)
      expectError(await client.get(`/file/${slug}/status`), 404, message)
      expectError(await client.put(`/file/${slug}`, { form: { name: 'stolen' } }), 404, message)
      expectError(await client.delete(`/file/${slug}`), 404, message)
    }
    expect(text(xmlOf(await alice.get(`/file/${slug}`), 200).file.name)).toBe('mine.png')
    expectError(await alice.get('/file/no-such-file'), 404, 'No file "no-such-file".')
  })

  it('profile flags: file.edit to update, file.delete to delete; reading needs none', async () => {
    const creator = await userWithFlags(app, 'creator', ['file.create'])
    const slug = text((await uploaded(creator, PNG, { filename: 'flags.png' })).slug)
    expect((await creator.get(`/file/${slug}`)).status).toBe(200)
    expect((await creator.get(`/file/${slug}/status`)).status).toBe(200)
    expectError(await creator.put(`/file/${slug}`, { form: { name: 'x' } }), 403, NEEDS('file.edit'))
    expectError(await creator.delete(`/file/${slug}`), 403, NEEDS('file.delete'))
    expect(text(xmlOf(await creator.get(`/file/${slug}`), 200).file.name)).toBe('flags.png')
    const editor = await userWithFlags(app, 'editor', ['file.create', 'file.edit', 'file.delete'])
    const own = text((await uploaded(editor, PNG, { filename: 'ok.png' })).slug)
    expect((await editor.put(`/file/${own}`, { form: { name: 'ok2.png' } })).status).toBe(200)
    expect((await editor.delete(`/file/${own}`)).status).toBe(204)
  })
})
