import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { INVALID, NEEDS, expectError, makeProfile, userWithProfile, xmlOf } from '../identity/permissions.fixtures.js'
import { MP4, PDF, PNG, STORE_ONLY, makeDirectory, uploaded } from './files.helpers.js'

/** The names of a `files` answer, in order. */
const names = (doc: XmlObject): string[] => list<XmlObject>((doc.files as XmlObject).file).map((f) => text(f.name))

describe('GET /search/files (an extension: the library of the console)', () => {
  let app: TestApp
  let alice: DigestClient
  let bob: DigestClient
  let carol: DigestClient
  let lectures: string
  let week1: string
  const slugs: Record<string, string> = {}

  beforeAll(async () => {
    app = await startApp({ config: STORE_ONLY })
    alice = await app.createUser({ username: 'alice' })
    bob = await app.createUser({ username: 'bob' })
    // Another tenant: carol's platform is not alice's.
    const res = await app.client.post('/platforms', { form: { name: 'Other campus', max_users: 0, max_space: 0 } })
    carol = await app.createUser({ username: 'carol', platform: text(xmlOf(res, 201).platform.slug) })
    lectures = await makeDirectory(alice, 'Lectures')
    week1 = await makeDirectory(alice, 'Week 1', lectures)
    const put = async (name: string, data: Buffer, folder?: string) => {
      slugs[name] = text((await uploaded(alice, data, { filename: name, fields: folder ? { folder } : {} })).slug)
    }
    await put('intro 2.mp4', MP4)
    await put('Intro 10.mp4', MP4, lectures)
    await put('École.pdf', PDF, week1)
    await put('poster.png', PNG, week1)
    await put('notes.pdf', Buffer.concat([PDF, PDF]))
    await uploaded(bob, MP4, { filename: 'intro bob.mp4' })
    await uploaded(carol, MP4, { filename: 'intro carol.mp4' })
  })
  afterAll(async () => app?.close())

  it('answers every file of the caller, oldest first, with the summary of a directory listing', async () => {
    const res = await alice.get('/search/files')
    const doc = xmlOf(res, 200)
    expect((doc.files as XmlObject)['@href']).toBe(`${app.url}/search/files`)
    expect(names(doc)).toEqual(['intro 2.mp4', 'Intro 10.mp4', 'École.pdf', 'poster.png', 'notes.pdf'])
    const first = list<XmlObject>((doc.files as XmlObject).file)[0]!
    expect(Object.keys(first).sort()).toEqual(
      ['@href', 'slug', 'name', 'size', 'type', 'encoding_status', 'encoding_progress', 'thumbnail'].sort(),
    )
    expect([res.headers['content-range'], res.headers['accept-ranges']]).toEqual(['entities 0-4/5', 'entities'])
  })

  it('matches part of the name whatever the case, Unicode included', async () => {
    expect(names(xmlOf(await alice.get('/search/files?name=INTRO'), 200))).toEqual(['intro 2.mp4', 'Intro 10.mp4'])
    expect(names(xmlOf(await alice.get(`/search/files?name=${encodeURIComponent('éco')}`), 200))).toEqual(['École.pdf'])
    const none = await alice.get('/search/files?name=nothing-like-this')
    expect([names(xmlOf(none, 200)), none.headers['content-range']]).toEqual([[], 'entities */0'])
  })

  it('filters by type, encoding status and directory (/ the root), together', async () => {
    expect(names(xmlOf(await alice.get('/search/files?type=document'), 200))).toEqual(['École.pdf', 'notes.pdf'])
    expect(names(xmlOf(await alice.get('/search/files?status=pending&type=image'), 200))).toEqual(['poster.png'])
    expect(names(xmlOf(await alice.get('/search/files?status=finished'), 200))).toEqual([])
    expect(names(xmlOf(await alice.get(`/search/files?folder=${week1}`), 200))).toEqual(['École.pdf', 'poster.png'])
    expect(names(xmlOf(await alice.get('/search/files?folder=/'), 200))).toEqual(['intro 2.mp4', 'notes.pdf'])
    const both = xmlOf(await alice.get(`/search/files?folder=${week1}&type=document&name=cole`), 200)
    expect(names(both)).toEqual(['École.pdf'])
    expect((both.files as XmlObject)['@href']).toBe(`${app.url}/search/files?name=cole&type=document&folder=${week1}`)
  })

  it('sorts by name as people read it (10 after 2), by size, by date, either way', async () => {
    const sorted = async (sort: string) => names(xmlOf(await alice.get(`/search/files?type=video&sort=${sort}`), 200))
    expect(await sorted('name')).toEqual(['intro 2.mp4', 'Intro 10.mp4'])
    expect(await sorted('-name')).toEqual(['Intro 10.mp4', 'intro 2.mp4'])
    expect(await sorted('-created')).toEqual(['Intro 10.mp4', 'intro 2.mp4'])
    expect(names(xmlOf(await alice.get('/search/files?type=document&sort=-size'), 200))).toEqual([
      'notes.pdf',
      'École.pdf',
    ])
    expect(names(xmlOf(await alice.get('/search/files?type=document&sort=size'), 200))).toEqual([
      'École.pdf',
      'notes.pdf',
    ])
  })

  it('pages with Range after sorting: the second page of the newest first', async () => {
    const res = await alice.get('/search/files?sort=-created', { headers: { Range: 'entities=2-3' } })
    expect(names(xmlOf(res, 200))).toEqual(['École.pdf', 'Intro 10.mp4'])
    expect(res.headers['content-range']).toBe('entities 2-3/5')
    const past = await alice.get('/search/files', { headers: { Range: 'entities=9-12' } })
    expect([names(xmlOf(past, 200)), past.headers['content-range']]).toEqual([[], 'entities */5'])
    const wrong = await alice.get('/search/files', { headers: { Range: 'entities=4-1' } })
    expect([wrong.status, wrong.headers['content-range']]).toEqual([416, 'entities */5'])
  })

  it('412 names each wrong filter, with the words it takes', async () => {
    expectError(await alice.get('/search/files?type=movie&status=done&sort=date'), 412, INVALID, {
      type: 'must be one of: video, audio, image, document, other',
      status: 'must be one of: pending, waiting, running, success, failed, finished',
      sort: 'must be one of: created, -created, name, -name, size, -size',
    })
    expectError(await alice.get(`/search/files?name=${'x'.repeat(256)}`), 412, INVALID, {
      name: 'must be at most 255 characters',
    })
  })

  it('the wrong user and the wrong tenant: only their own files, and no directory of anyone else', async () => {
    expect(names(xmlOf(await bob.get('/search/files'), 200))).toEqual(['intro bob.mp4'])
    expect(names(xmlOf(await carol.get('/search/files?name=intro'), 200))).toEqual(['intro carol.mp4'])
    // The installation's administrator too: files are private to their owner.
    expect(names(xmlOf(await app.client.get('/search/files'), 200))).toEqual([])
    expectError(await bob.get(`/search/files?folder=${week1}`), 412, INVALID, {
      folder: `you have no directory "${week1}"`,
    })
    expect((await fetch(`${app.url}/search/files`)).status).toBe(401)
  })
})

describe('GET /search/directories?parent= (an extension: one directory at a time)', () => {
  let app: TestApp
  let alice: DigestClient
  let bob: DigestClient

  beforeAll(async () => {
    app = await startApp({ config: STORE_ONLY })
    alice = await app.createUser({ username: 'alice' })
    bob = await app.createUser({ username: 'bob' })
  })
  afterAll(async () => app?.close())

  it('answers the subdirectories of a directory, / the root, a name narrowing them', async () => {
    const lectures = await makeDirectory(alice, 'Lectures')
    await makeDirectory(alice, 'Week 1', lectures)
    await makeDirectory(alice, 'Week 2', lectures)
    await makeDirectory(alice, 'Archive')
    const dirNames = (doc: XmlObject) =>
      list<XmlObject>((doc.directories as XmlObject).directory).map((d) => text(d.name))
    expect(dirNames(xmlOf(await alice.get('/search/directories?parent=/'), 200))).toEqual(['Lectures', 'Archive'])
    const week = xmlOf(await alice.get(`/search/directories?parent=${lectures}&name=2`), 200)
    expect(dirNames(week)).toEqual(['Week 2'])
    expect((week.directories as XmlObject)['@href']).toBe(`${app.url}/search/directories?name=2&parent=${lectures}`)
    expect(dirNames(xmlOf(await alice.get('/search/directories?name=week'), 200))).toEqual(['Week 1', 'Week 2'])
  })

  it('412 without a name or a parent, and for a directory of someone else', async () => {
    expectError(await alice.get('/search/directories'), 412, INVALID, {
      name: 'is required: send part of a directory name',
    })
    const mine = await makeDirectory(alice, 'Mine')
    expectError(await bob.get(`/search/directories?parent=${mine}`), 412, INVALID, {
      parent: `you have no directory "${mine}"`,
    })
  })
})

describe('PUT /file/<slug> with folder (an extension: moving a file)', () => {
  let app: TestApp
  let alice: DigestClient
  let bob: DigestClient

  beforeAll(async () => {
    app = await startApp({ config: STORE_ONLY })
    alice = await app.createUser({ username: 'alice' })
    bob = await app.createUser({ username: 'bob' })
  })
  afterAll(async () => app?.close())

  const parentOf = (doc: XmlObject) => ((doc.file as XmlObject).directory as XmlObject)['@href']

  it('moves the file into another directory, then back to the root', async () => {
    const target = await makeDirectory(alice, 'Target')
    const slug = text((await uploaded(alice, PNG, { filename: 'moved.png' })).slug)
    const moved = xmlOf(await alice.put(`/file/${slug}`, { form: { folder: target } }), 200)
    expect(parentOf(moved)).toBe(`${app.url}/files/${target}`)
    expect(names(xmlOf(await alice.get(`/files/${target}`), 200))).toEqual(['moved.png'])
    expect(parentOf(xmlOf(await alice.put(`/file/${slug}`, { form: { folder: '/' } }), 200))).toBe(`${app.url}/files`)
    expect(names(xmlOf(await alice.get(`/files/${target}`), 200))).toEqual([])
  })

  it('412 for a directory that is not the owner’s, 403 without file.edit, 404 for another’s file', async () => {
    const slug = text((await uploaded(alice, PNG, { filename: 'stays.png' })).slug)
    const bobs = await makeDirectory(bob, 'Bobs')
    expectError(await alice.put(`/file/${slug}`, { form: { folder: bobs } }), 412, INVALID, {
      folder: `you have no directory "${bobs}"`,
    })
    expect(parentOf(xmlOf(await alice.get(`/file/${slug}`), 200))).toBe(`${app.url}/files`)
    expect((await bob.put(`/file/${slug}`, { form: { folder: bobs } })).status).toBe(404)
    const profile = await makeProfile(app, ['file.create', 'folder.create'])
    const dave = await userWithProfile(app, 'dave', profile)
    const his = text((await uploaded(dave, PNG, { filename: 'his.png' })).slug)
    const folder = await makeDirectory(dave, 'His')
    expectError(await dave.put(`/file/${his}`, { form: { folder } }), 403, NEEDS('file.edit'))
  })
})
