import { ForeignKeyConstraintViolationException } from '@mikro-orm/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AccessEntity,
  GroupEntity,
  GroupMemberEntity,
  ProfileEntity,
  RoleEntity,
  UserEntity,
} from '../../../plugins/identity/index.js'
import { type Platform, PlatformEntity, createPlatform } from '../../../plugins/platforms/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient, Response } from '../../helpers/digest-client.js'
import { FakeTree, PLUGINS_WITHOUT_PUBLISHING, fakeKindsPlugin } from '../../helpers/test-kinds.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { DECLARATION, INVALID, expectError, xmlOf } from '../../helpers/answers.js'

const ID = '[A-Za-z0-9]{12}'

/** What one `access` element must show: [link name, slug] of subject and object, and the role slug. */
interface Expected {
  subject: ['user' | 'group', string]
  object: [string, string]
  role: string
}

const tree = new FakeTree()
let app: TestApp
const platforms: Record<string, Platform> = {}
/** Clients of the users made in beforeAll, by username. */
const as: Record<string, DigestClient> = {}

/**
 * Checks a list answer: the list's href, then each access exactly (href under its subject
 * ending in a 12-character id, subject, object and role links, nothing else). Returns the ids.
 */
function expectAccesses(res: Response, status: number, listPath: string, expected: Expected[]): string[] {
  const doc = xmlOf(res, status)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['accesses'])
  expect(doc.accesses['@href']).toBe(`${app.url}${listPath}`)
  const items = list<XmlObject>(doc.accesses.access)
  expect(items.length, res.body).toBe(expected.length)
  expect(res.headers['accept-ranges']).toBe('entities')
  return items.map((node, i) => {
    const e = expected[i]!
    const [subjectKind, subjectName] = e.subject
    const [objectKind, objectSlug] = e.object
    expect(Object.keys(node).sort()).toEqual(['@href', objectKind, 'role', subjectKind].sort())
    const match = new RegExp(`^${app.url}/${subjectKind}/${subjectName}/accesses/(${ID})$`).exec(node['@href'])
    expect(match, node['@href']).not.toBeNull()
    expect(node[subjectKind]).toEqual({ '@href': `${app.url}/${subjectKind}/${subjectName}` })
    expect(node[objectKind]).toEqual({ '@href': `${app.url}/${objectKind}/${objectSlug}` })
    expect(node.role).toEqual({ '@href': `${app.url}/role/${e.role}` })
    return match![1]!
  })
}

const em = () => app.kernel.em()

/** A profile with exactly these flags on a platform. */
async function makeProfile(platform: string, name: string, permissions: string[]): Promise<void> {
  const fork = em()
  fork.create(ProfileEntity, {
    slug: `${platform}-${name}`,
    name,
    quota: 0,
    permissions,
    platform: platforms[platform]!,
    createdAt: new Date(),
  })
  await fork.flush()
}

/** Creates a user on a platform with the profile of that slug (`admin`: the default Administrator). */
async function makeUser(username: string, platform: string, profileSlug?: string): Promise<DigestClient> {
  const client = await app.createUser({ username, platform })
  if (profileSlug) {
    const fork = em()
    const user = await fork.findOneOrFail(UserEntity, { username })
    user.profile = await fork.findOneOrFail(ProfileEntity, { slug: profileSlug })
    await fork.flush()
  }
  as[username] = client
  return client
}

async function makeRole(platform: string, slug: string, permissions: string[]): Promise<void> {
  const fork = em()
  fork.create(RoleEntity, { slug, name: slug, permissions, platform: platforms[platform]!, createdAt: new Date() })
  await fork.flush()
}

async function makeGroup(platform: string, slug: string, members: string[]): Promise<void> {
  const fork = em()
  const group = fork.create(GroupEntity, { slug, name: slug, platform: platforms[platform]!, createdAt: new Date() })
  for (const username of members) {
    const user = await fork.findOneOrFail(UserEntity, { username })
    fork.create(GroupMemberEntity, { group, user, createdAt: new Date() })
  }
  await fork.flush()
}

async function addMember(slug: string, username: string): Promise<void> {
  const fork = em()
  const group = await fork.findOneOrFail(GroupEntity, { slug })
  fork.create(GroupMemberEntity, {
    group,
    user: await fork.findOneOrFail(UserEntity, { username }),
    createdAt: new Date(),
  })
  await fork.flush()
}

/** Grants as the installation administrator, asserting 201; returns the id of the new (last) access. */
async function grant(subjectPath: string, form: Record<string, string>): Promise<string> {
  const res = await app.client.post(`${subjectPath}/accesses`, { form })
  expect(res.status, res.body).toBe(201)
  const items = list<XmlObject>(parseXml(res.body).accesses.access)
  return String(items.at(-1)!['@href']).split('/').at(-1)!
}

/** The ids of a subject's accesses, as the administrator lists them. */
async function idsOf(subjectPath: string): Promise<string[]> {
  const res = await app.client.get(`${subjectPath}/accesses`)
  expect(res.status, res.body).toBe(200)
  return list<XmlObject>(parseXml(res.body).accesses.access).map((a) => String(a['@href']).split('/').at(-1)!)
}

async function revokeAll(subjectPath: string): Promise<void> {
  for (const id of await idsOf(subjectPath)) {
    expect((await app.client.delete(`${subjectPath}/accesses/${id}`)).status).toBe(200)
  }
}

const KINDS = 'platform, media, stream, resource'

beforeAll(async () => {
  app = await startApp({ plugins: [fakeKindsPlugin(tree)], config: { plugins: PLUGINS_WITHOUT_PUBLISHING } })
  const fork = em()
  platforms.default = await fork.findOneOrFail(PlatformEntity, { slug: 'default' })
  platforms.other = await createPlatform(app.kernel.emit, fork, { name: 'Other', maxUsers: 0, maxSpace: 0 })
  const home = { kind: 'platform', id: platforms.default.id }
  const news = tree.add('media', 'news', home)
  const live = tree.add('stream', 'news-live', news)
  tree.add('resource', 'news-clip', live)
  tree.add('media', 'sport', home)
  const foreign = tree.add('media', 'foreign', { kind: 'platform', id: platforms.other.id })
  tree.add('stream', 'foreign-live', foreign)

  await makeProfile('default', 'nothing', [])
  await makeProfile('default', 'access-manager', [
    'platform.view',
    'user.view',
    'user.manage_access',
    'group.view',
    'group.manage_access',
  ])
  await makeProfile('other', 'nothing', [])
  // alice: the default Administrator profile (platform administrator, every manage flag).
  await makeUser('alice', 'default')
  await makeUser('bob', 'default', 'default-nothing')
  await makeUser('carol', 'default', 'default-viewer')
  await makeUser('dave', 'default', 'default-access-manager')
  await makeUser('erin', 'default', 'default-viewer')
  await makeUser('frank', 'default', 'default-nothing')
  await makeUser('mallory', 'other')
  await makeUser('oscar', 'other', 'other-nothing')
  await makeRole('default', 'media-keeper', [
    'media.view',
    'media.manage_access',
    'stream.view',
    'stream.manage_access',
    'resource.view',
  ])
  await makeRole('default', 'media-viewer', ['media.view', 'stream.view', 'resource.view'])
  await makeGroup('default', 'newsroom', [])
  await makeGroup('other', 'outsiders', ['oscar'])
})
afterAll(async () => app?.close())

describe('accesses of a user', () => {
  it('an empty list answers 200 with the list href and Content-Range */0', async () => {
    const res = await app.client.get('/user/frank/accesses')
    expectAccesses(res, 200, '/user/frank/accesses', [])
    expect(res.body).toBe(`${DECLARATION}<accesses href="${app.url}/user/frank/accesses"/>`)
    expect(res.headers['content-range']).toBe('entities */0')
  })

  it('POST grants a role on the platform: 201 with every access of the user, exactly', async () => {
    const res = await app.client.post('/user/frank/accesses', {
      form: { platform: 'default', role: 'default-viewer' },
    })
    const [id] = expectAccesses(res, 201, '/user/frank/accesses', [
      { subject: ['user', 'frank'], object: ['platform', 'default'], role: 'default-viewer' },
    ])
    expect(res.body).toBe(
      `${DECLARATION}<accesses href="${app.url}/user/frank/accesses">` +
        `<access href="${app.url}/user/frank/accesses/${id}"><user href="${app.url}/user/frank"/>` +
        `<platform href="${app.url}/platform/default"/><role href="${app.url}/role/default-viewer"/></access></accesses>`,
    )
    expect(res.headers['content-range']).toBe('entities 0-0/1')
    // The list shows the same, and the stored row carries the public id.
    const again = await app.client.get('/user/frank/accesses')
    expect(again.body).toBe(res.body)
    const row = await em().findOneOrFail(AccessEntity, { publicId: id! }, { populate: ['user', 'role', 'platform'] })
    expect([row.user?.username, row.group, row.objectKind, row.objectId, row.role.slug, row.platform.slug]).toEqual([
      'frank',
      null,
      'platform',
      platforms.default!.id,
      'default-viewer',
      'default',
    ])
  })

  it('objects of every registered kind, listed oldest first; each POST answers the whole list', async () => {
    await grant('/user/frank', { media: 'news', role: 'default-editor' })
    await grant('/user/frank', { stream: 'news-live', role: 'media-viewer' })
    const res = await app.client.post('/user/frank/accesses', {
      form: { resource: 'news-clip', role: 'default-manager' },
    })
    const expected: Expected[] = [
      { subject: ['user', 'frank'], object: ['platform', 'default'], role: 'default-viewer' },
      { subject: ['user', 'frank'], object: ['media', 'news'], role: 'default-editor' },
      { subject: ['user', 'frank'], object: ['stream', 'news-live'], role: 'media-viewer' },
      { subject: ['user', 'frank'], object: ['resource', 'news-clip'], role: 'default-manager' },
    ]
    const ids = expectAccesses(res, 201, '/user/frank/accesses', expected)
    expect(new Set(ids).size).toBe(4)
    expect(expectAccesses(await app.client.get('/user/frank/accesses'), 200, '/user/frank/accesses', expected)).toEqual(
      ids,
    )
  })

  it('Range pages the list; a start past the end is an empty page', async () => {
    const res = await app.client.get('/user/frank/accesses', { headers: { range: 'entities=1-2' } })
    expectAccesses(res, 200, '/user/frank/accesses', [
      { subject: ['user', 'frank'], object: ['media', 'news'], role: 'default-editor' },
      { subject: ['user', 'frank'], object: ['stream', 'news-live'], role: 'media-viewer' },
    ])
    expect(res.headers['content-range']).toBe('entities 1-2/4')
    const tail = await app.client.get('/user/frank/accesses', { headers: { range: 'entities=3-' } })
    expect(
      expectAccesses(tail, 200, '/user/frank/accesses', [
        { subject: ['user', 'frank'], object: ['resource', 'news-clip'], role: 'default-manager' },
      ]),
    ).toHaveLength(1)
    expect(tail.headers['content-range']).toBe('entities 3-3/4')
    const past = await app.client.get('/user/frank/accesses', { headers: { range: 'entities=4-' } })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe('entities */4')
  })

  it('granting the same role on the same object again is idempotent: 201, no new access', async () => {
    const before = await idsOf('/user/frank')
    const res = await app.client.post('/user/frank/accesses', { form: { media: 'news', role: 'default-editor' } })
    expect(res.status).toBe(201)
    expect(await idsOf('/user/frank')).toEqual(before)
    // Another role on the same object is another access.
    await grant('/user/frank', { media: 'news', role: 'default-viewer' })
    expect(await idsOf('/user/frank')).toHaveLength(before.length + 1)
  })

  it('DELETE answers 200 with the remaining accesses; the id is gone', async () => {
    const ids = await idsOf('/user/frank')
    const res = await app.client.delete(`/user/frank/accesses/${ids[1]}`)
    const remaining = expectAccesses(res, 200, '/user/frank/accesses', [
      { subject: ['user', 'frank'], object: ['platform', 'default'], role: 'default-viewer' },
      { subject: ['user', 'frank'], object: ['stream', 'news-live'], role: 'media-viewer' },
      { subject: ['user', 'frank'], object: ['resource', 'news-clip'], role: 'default-manager' },
      { subject: ['user', 'frank'], object: ['media', 'news'], role: 'default-viewer' },
    ])
    expect(remaining).toEqual(ids.filter((_, i) => i !== 1))
    expectError(
      await app.client.delete(`/user/frank/accesses/${ids[1]}`),
      404,
      `No access "${ids[1]}" of user "frank".`,
    )
    await revokeAll('/user/frank')
    expect(await idsOf('/user/frank')).toEqual([])
  })

  it('there is no access info and no update', async () => {
    const id = await grant('/user/frank', { platform: 'default', role: 'default-viewer' })
    expect((await app.client.get(`/user/frank/accesses/${id}`)).status).toBe(404)
    expect((await app.client.put(`/user/frank/accesses/${id}`, { form: { role: 'default-editor' } })).status).toBe(404)
    await revokeAll('/user/frank')
  })
})

describe('accesses of a group, and of an object', () => {
  it('POST /group/<slug>/accesses grants to the group and answers all its accesses; DELETE revokes', async () => {
    expectAccesses(await app.client.get('/group/newsroom/accesses'), 200, '/group/newsroom/accesses', [])
    await grant('/group/newsroom', { media: 'sport', role: 'default-viewer' })
    const res = await app.client.post('/group/newsroom/accesses', {
      form: { stream: 'news-live', role: 'default-editor' },
    })
    const ids = expectAccesses(res, 201, '/group/newsroom/accesses', [
      { subject: ['group', 'newsroom'], object: ['media', 'sport'], role: 'default-viewer' },
      { subject: ['group', 'newsroom'], object: ['stream', 'news-live'], role: 'default-editor' },
    ])
    expect(res.body).toContain(
      `<access href="${app.url}/group/newsroom/accesses/${ids[0]}"><group href="${app.url}/group/newsroom"/>`,
    )
    const after = await app.client.delete(`/group/newsroom/accesses/${ids[0]}`)
    expectAccesses(after, 200, '/group/newsroom/accesses', [
      { subject: ['group', 'newsroom'], object: ['stream', 'news-live'], role: 'default-editor' },
    ])
    await revokeAll('/group/newsroom')
  })

  it('GET /platform/<slug>/accesses and /<kind>/<slug>/accesses list users and groups on that object, oldest first', async () => {
    await grant('/user/frank', { platform: 'default', role: 'default-viewer' })
    await grant('/group/newsroom', { platform: 'default', role: 'default-editor' })
    await grant('/user/frank', { media: 'news', role: 'default-editor' })
    await grant('/group/newsroom', { media: 'news', role: 'default-viewer' })
    const onPlatform = await app.client.get('/platform/default/accesses')
    expectAccesses(onPlatform, 200, '/platform/default/accesses', [
      { subject: ['user', 'frank'], object: ['platform', 'default'], role: 'default-viewer' },
      { subject: ['group', 'newsroom'], object: ['platform', 'default'], role: 'default-editor' },
    ])
    expect(onPlatform.headers['content-range']).toBe('entities 0-1/2')
    const onMedia = await app.client.get('/media/news/accesses', { headers: { range: 'entities=1-' } })
    expectAccesses(onMedia, 200, '/media/news/accesses', [
      { subject: ['group', 'newsroom'], object: ['media', 'news'], role: 'default-viewer' },
    ])
    expect(onMedia.headers['content-range']).toBe('entities 1-1/2')
    // Accesses on an object are not those of the objects below it.
    expectAccesses(await app.client.get('/stream/news-live/accesses'), 200, '/stream/news-live/accesses', [])
    expectError(await app.client.get('/media/nope/accesses'), 404, 'No media "nope".')
    expectError(await app.client.get('/platform/nope/accesses'), 404, 'No platform "nope".')
    await revokeAll('/user/frank')
    await revokeAll('/group/newsroom')
  })

  it('an unknown subject is 404 on every method', async () => {
    expectError(await app.client.get('/user/nobody/accesses'), 404, 'No user "nobody".')
    expectError(
      await app.client.post('/user/nobody/accesses', { form: { platform: 'default', role: 'default-viewer' } }),
      404,
      'No user "nobody".',
    )
    expectError(await app.client.delete('/user/nobody/accesses/abcdefghijkl'), 404, 'No user "nobody".')
    expectError(await app.client.get('/group/nogroup/accesses'), 404, 'No group "nogroup".')
    expectError(
      await app.client.post('/group/nogroup/accesses', { form: { platform: 'default', role: 'default-viewer' } }),
      404,
      'No group "nogroup".',
    )
    expectError(await app.client.delete('/group/nogroup/accesses/abcdefghijkl'), 404, 'No group "nogroup".')
  })

  it('an id of another subject is 404 and deletes nothing', async () => {
    const id = await grant('/user/frank', { platform: 'default', role: 'default-viewer' })
    expectError(await app.client.delete(`/user/bob/accesses/${id}`), 404, `No access "${id}" of user "bob".`)
    expectError(
      await app.client.delete(`/group/newsroom/accesses/${id}`),
      404,
      `No access "${id}" of group "newsroom".`,
    )
    expect(await idsOf('/user/frank')).toEqual([id])
    await revokeAll('/user/frank')
  })
})

describe('validation (412)', () => {
  const post = (form: Record<string, string>, subject = '/user/frank') =>
    app.client.post(`${subject}/accesses`, { form })

  it('no object field, and no role', async () => {
    expectError(await post({}), 412, INVALID, {
      object: `is required: send the object's slug in one field named for its kind (${KINDS})`,
      role: 'is required',
    })
    expectError(await post({ role: 'default-viewer', name: 'ignored' }), 412, INVALID, {
      object: `is required: send the object's slug in one field named for its kind (${KINDS})`,
    })
  })

  it('several object fields name each of them', async () => {
    expectError(await post({ platform: 'default', media: 'news', role: 'default-viewer' }), 412, INVALID, {
      platform: 'is one of several object fields (platform, media): send exactly one',
      media: 'is one of several object fields (platform, media): send exactly one',
    })
  })

  it('an empty, unknown or foreign object; an unknown or foreign role', async () => {
    expectError(await post({ media: '', role: '' }), 412, INVALID, { media: 'is required', role: 'is required' })
    expectError(await post({ media: 'nope', role: 'nope' }), 412, INVALID, {
      media: 'no media "nope" on platform "default"',
      role: 'no role "nope" on platform "default"',
    })
    // Objects and roles of another platform look exactly like missing ones.
    expectError(await post({ media: 'foreign', role: 'other-viewer' }), 412, INVALID, {
      media: 'no media "foreign" on platform "default"',
      role: 'no role "other-viewer" on platform "default"',
    })
    expectError(await post({ stream: 'foreign-live', role: 'default-viewer' }), 412, INVALID, {
      stream: 'no stream "foreign-live" on platform "default"',
    })
    expectError(await post({ platform: 'other', role: 'default-viewer' }), 412, INVALID, {
      platform: 'must be "default", the platform of the user',
    })
    expectError(await post({ platform: 'nope', role: 'default-viewer' }, '/group/newsroom'), 412, INVALID, {
      platform: 'must be "default", the platform of the group',
    })
    expectError(await post({ media: 'x'.repeat(65), role: 'default-viewer' }), 412, INVALID, {
      media: 'must be at most 64 characters',
    })
    expect(await idsOf('/user/frank')).toEqual([])
  })
})

describe('a granted access changes what the grantee may do, at once', () => {
  it('a role on the platform: 404 → 200, inherited by the objects below; revoking is immediate', async () => {
    const bob = as.bob!
    expectError(await bob.get('/platform/default'), 404, 'No platform "default".')
    expectError(await bob.get('/media/news'), 404, 'No media "news".')
    const id = await grant('/user/bob', { platform: 'default', role: 'default-viewer' })
    expect((await bob.get('/platform/default')).status).toBe(200)
    expect((await bob.get('/media/news')).status).toBe(200)
    expect((await bob.get('/resource/news-clip')).status).toBe(200)
    expectError(await bob.put('/media/news'), 403, 'This needs the "media.edit" permission.')
    await app.client.delete(`/user/bob/accesses/${id}`)
    expectError(await bob.get('/platform/default'), 404, 'No platform "default".')
    expectError(await bob.get('/media/news'), 404, 'No media "news".')
  })

  it('a role on a media reaches its streams and resources, not its siblings nor the platform', async () => {
    const bob = as.bob!
    await grant('/user/bob', { media: 'news', role: 'default-editor' })
    expect((await bob.put('/media/news')).status).toBe(200)
    expect((await bob.put('/stream/news-live')).status).toBe(200)
    expect((await bob.get('/resource/news-clip')).status).toBe(200)
    expectError(await bob.get('/media/sport'), 404, 'No media "sport".')
    expectError(await bob.get('/platform/default'), 404, 'No platform "default".')
    expectError(await bob.delete('/media/news'), 403, 'This needs the "media.delete" permission.')
    await revokeAll('/user/bob')
    expectError(await bob.get('/media/news'), 404, 'No media "news".')
  })

  it('through a group membership; own and group accesses add up', async () => {
    const bob = as.bob!
    await makeGroup('default', 'bobs', ['bob'])
    await grant('/group/bobs', { stream: 'news-live', role: 'default-editor' })
    expect((await bob.put('/stream/news-live')).status).toBe(200)
    expectError(await bob.get('/media/news'), 404, 'No media "news".')
    await grant('/user/bob', { media: 'news', role: 'default-viewer' })
    // Union: the media from his own access, the stream edit from the group's.
    expect((await bob.get('/media/news')).status).toBe(200)
    expectError(await bob.put('/media/news'), 403, 'This needs the "media.edit" permission.')
    expect((await bob.put('/stream/news-live')).status).toBe(200)
    await revokeAll('/group/bobs')
    expectError(await bob.put('/stream/news-live'), 403, 'This needs the "stream.edit" permission.')
    await revokeAll('/user/bob')
    expectError(await bob.get('/stream/news-live'), 404, 'No stream "news-live".')
  })
})

describe('authorization', () => {
  it("a user may always list their own accesses, and nobody else's without user.view", async () => {
    const bob = as.bob!
    await grant('/user/bob', { media: 'sport', role: 'default-viewer' })
    expectAccesses(await bob.get('/user/bob/accesses'), 200, '/user/bob/accesses', [
      { subject: ['user', 'bob'], object: ['media', 'sport'], role: 'default-viewer' },
    ])
    expectError(await bob.get('/user/frank/accesses'), 404, 'No user "frank".')
    expectError(await bob.get('/group/newsroom/accesses'), 404, 'No group "newsroom".')
    // Listing is not managing: he may not grant or revoke, not even his own.
    const id = (await idsOf('/user/bob'))[0]!
    expectError(
      await bob.post('/user/bob/accesses', { form: { platform: 'default', role: 'default-manager' } }),
      403,
      'This needs the "user.manage_access" permission of your profile.',
    )
    expectError(
      await bob.delete(`/user/bob/accesses/${id}`),
      403,
      'This needs the "user.manage_access" permission of your profile, or "media.manage_access" on the media.',
    )
    await revokeAll('/user/bob')
  })

  it('user.view lists; creating and deleting need user.manage_access (group.manage_access for groups)', async () => {
    const carol = as.carol!
    const id = await grant('/user/frank', { platform: 'default', role: 'default-viewer' })
    expect((await carol.get('/user/frank/accesses')).status).toBe(200)
    expect((await carol.get('/group/newsroom/accesses')).status).toBe(200)
    const needs = 'This needs the "user.manage_access" permission of your profile.'
    expectError(
      await carol.post('/user/frank/accesses', { form: { platform: 'default', role: 'default-viewer' } }),
      403,
      needs,
    )
    // 403 comes first, whatever else is wrong with the request.
    expectError(await carol.post('/user/frank/accesses', { form: {} }), 403, needs)
    expectError(
      await carol.post('/user/frank/accesses', { form: { media: 'news', role: 'default-viewer' } }),
      403,
      'This needs the "user.manage_access" permission of your profile, or "media.manage_access" on the media.',
    )
    expectError(await carol.delete(`/user/frank/accesses/${id}`), 403, needs)
    expectError(
      await carol.post('/group/newsroom/accesses', { form: { platform: 'default', role: 'default-viewer' } }),
      403,
      'This needs the "group.manage_access" permission of your profile.',
    )
    // Seeing the platform but not its accesses.
    expectError(
      await carol.get('/platform/default/accesses'),
      403,
      'This needs the "user.manage_access" or "group.manage_access" permission of your profile.',
    )
    expectError(await carol.get('/media/news/accesses'), 404, 'No media "news".')
    expect(await idsOf('/user/frank')).toEqual([id])
    await revokeAll('/user/frank')
  })

  it('no escalation: a manager grants and revokes only roles whose every flag they hold on the object', async () => {
    const dave = as.dave!
    // dave manages accesses but holds only platform.view (his profile) on the platform.
    expectError(
      await dave.post('/user/frank/accesses', { form: { platform: 'default', role: 'default-viewer' } }),
      403,
      'You may not grant role "default-viewer" on this platform: you do not hold media.view, stream.view, resource.view there.',
    )
    // He does not see the media: to him it does not exist.
    expectError(
      await dave.post('/user/frank/accesses', { form: { media: 'news', role: 'default-viewer' } }),
      412,
      INVALID,
      {
        media: 'no media "news" on platform "default"',
      },
    )
    await grant('/user/dave', { platform: 'default', role: 'default-viewer' })
    const res = await dave.post('/user/frank/accesses', { form: { media: 'news', role: 'default-viewer' } })
    const [viewerId] = expectAccesses(res, 201, '/user/frank/accesses', [
      { subject: ['user', 'frank'], object: ['media', 'news'], role: 'default-viewer' },
    ])
    expect(
      (await dave.post('/group/newsroom/accesses', { form: { platform: 'default', role: 'default-viewer' } })).status,
    ).toBe(201)
    expectError(
      await dave.post('/user/frank/accesses', { form: { media: 'news', role: 'default-editor' } }),
      403,
      'You may not grant role "default-editor" on this media: you do not hold platform.view_protected, platform.create, platform.edit, media.view_protected, media.create, media.edit, media.change_theme, stream.view_protected, stream.create, stream.edit, stream.change_theme, resource.view_protected, resource.create, resource.edit, resource.activate_rating, resource.export there.',
    )
    // Revoking what one could not grant is refused too.
    const managerId = await grant('/user/frank', { media: 'news', role: 'default-manager' })
    expect((await dave.delete(`/user/frank/accesses/${managerId}`)).status).toBe(403)
    expect((await dave.delete(`/user/frank/accesses/${viewerId}`)).status).toBe(200)
    expect(await idsOf('/user/frank')).toEqual([managerId])
    // And listing the accesses of the platform is allowed with user.manage_access.
    expect((await dave.get('/platform/default/accesses')).status).toBe(200)
    await revokeAll('/user/frank')
    await revokeAll('/user/dave')
    await revokeAll('/group/newsroom')
  })

  it('media.manage_access on a media lets its holder grant there (and below), nowhere else', async () => {
    const erin = as.erin!
    await grant('/user/erin', { media: 'news', role: 'media-keeper' })
    const res = await erin.post('/user/frank/accesses', { form: { media: 'news', role: 'media-viewer' } })
    expect(res.status, res.body).toBe(201)
    expect(
      (await erin.post('/user/frank/accesses', { form: { stream: 'news-live', role: 'media-viewer' } })).status,
    ).toBe(201)
    expect(
      (await erin.post('/group/newsroom/accesses', { form: { media: 'news', role: 'media-viewer' } })).status,
    ).toBe(201)
    // The platform Viewer profile gives her platform.view on the media too, so the Viewer role is hers to grant.
    expect((await erin.post('/user/frank/accesses', { form: { media: 'news', role: 'default-viewer' } })).status).toBe(
      201,
    )
    const editor = await erin.post('/user/frank/accesses', { form: { media: 'news', role: 'default-editor' } })
    expect(editor.status).toBe(403)
    expect(text(parseXml(editor.body).error.message)).toMatch(
      /^You may not grant role "default-editor" on this media: /,
    )
    expectError(
      await erin.post('/user/frank/accesses', { form: { media: 'sport', role: 'media-viewer' } }),
      403,
      'This needs the "user.manage_access" permission of your profile, or "media.manage_access" on the media.',
    )
    expectError(
      await erin.post('/user/frank/accesses', { form: { platform: 'default', role: 'media-viewer' } }),
      403,
      'This needs the "user.manage_access" permission of your profile.',
    )
    expectError(
      await erin.post('/user/frank/accesses', { form: { resource: 'news-clip', role: 'media-viewer' } }),
      403,
      'This needs the "user.manage_access" permission of your profile.',
    )
    // She lists the accesses on what she manages, not elsewhere.
    expect((await erin.get('/media/news/accesses')).status).toBe(200)
    expect((await erin.get('/stream/news-live/accesses')).status).toBe(200)
    expectError(await erin.get('/media/sport/accesses'), 404, 'No media "sport".')
    expectError(
      await erin.get('/platform/default/accesses'),
      403,
      'This needs the "user.manage_access" or "group.manage_access" permission of your profile.',
    )
    // She revokes on her media.
    const ids = await idsOf('/user/frank')
    expect((await erin.delete(`/user/frank/accesses/${ids[0]}`)).status).toBe(200)
    await revokeAll('/user/frank')
    await revokeAll('/group/newsroom')
    await revokeAll('/user/erin')
    expectError(
      await erin.post('/user/frank/accesses', { form: { media: 'news', role: 'media-viewer' } }),
      403,
      'This needs the "user.manage_access" permission of your profile, or "media.manage_access" on the media.',
    )
  })

  it('a platform administrator (profile platform.edit) manages accesses of their platform', async () => {
    const alice = as.alice!
    const res = await alice.post('/user/frank/accesses', { form: { media: 'news', role: 'default-manager' } })
    const [id] = expectAccesses(res, 201, '/user/frank/accesses', [
      { subject: ['user', 'frank'], object: ['media', 'news'], role: 'default-manager' },
    ])
    expect((await alice.get('/media/news/accesses')).status).toBe(200)
    expect((await alice.delete(`/user/frank/accesses/${id}`)).status).toBe(200)
  })
})

describe('tenant isolation', () => {
  it("another platform's administrator reaches nothing of this one, through any path, list or Range", async () => {
    const mallory = as.mallory!
    const id = await grant('/user/frank', { media: 'news', role: 'default-viewer' })
    await grant('/group/newsroom', { platform: 'default', role: 'default-viewer' })
    for (const path of [
      '/user/frank/accesses',
      '/group/newsroom/accesses',
      '/platform/default/accesses',
      '/media/news/accesses',
      '/stream/news-live/accesses',
    ]) {
      for (const headers of [{}, { range: 'entities=0-0' }, { range: 'entities=9-' }] as Record<string, string>[]) {
        const res = await mallory.get(path, { headers })
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(404)
        expect(res.headers['content-range']).toBeUndefined()
        expect(res.body).not.toContain(id)
      }
    }
    expectError(
      await mallory.post('/user/frank/accesses', { form: { platform: 'other', role: 'other-manager' } }),
      404,
      'No user "frank".',
    )
    expectError(await mallory.delete(`/user/frank/accesses/${id}`), 404, 'No user "frank".')
    expectError(
      await mallory.post('/group/newsroom/accesses', { form: { platform: 'other', role: 'other-manager' } }),
      404,
      'No group "newsroom".',
    )
    // Through her own subjects, this platform's objects, roles and access ids do not exist.
    expectError(
      await mallory.post('/user/oscar/accesses', { form: { media: 'news', role: 'default-viewer' } }),
      412,
      INVALID,
      {
        media: 'no media "news" on platform "other"',
        role: 'no role "default-viewer" on platform "other"',
      },
    )
    expectError(
      await mallory.post('/group/outsiders/accesses', { form: { platform: 'default', role: 'other-viewer' } }),
      412,
      INVALID,
      {
        platform: 'must be "other", the platform of the group',
      },
    )
    expectError(await mallory.delete(`/user/oscar/accesses/${id}`), 404, `No access "${id}" of user "oscar".`)
    expect(
      (await mallory.post('/user/oscar/accesses', { form: { media: 'foreign', role: 'other-viewer' } })).status,
    ).toBe(201)
    expect(await idsOf('/user/frank')).toEqual([id])
    await revokeAll('/user/frank')
    await revokeAll('/group/newsroom')
    await revokeAll('/user/oscar')
  })

  it('the installation administrator manages accesses on every platform', async () => {
    const res = await app.client.post('/group/outsiders/accesses', { form: { media: 'foreign', role: 'other-editor' } })
    expectAccesses(res, 201, '/group/outsiders/accesses', [
      { subject: ['group', 'outsiders'], object: ['media', 'foreign'], role: 'other-editor' },
    ])
    expect((await as.oscar!.put('/media/foreign')).status).toBe(200)
    expectError(await as.oscar!.get('/media/news'), 404, 'No media "news".')
    await revokeAll('/group/outsiders')
  })
})

describe('cascades', () => {
  const count = async (where: Record<string, unknown>) => em().count(AccessEntity, where)

  it('accesses go with their user and with their group (database cascade)', async () => {
    await makeUser('temp', 'default', 'default-nothing')
    await makeGroup('default', 'temps', ['temp'])
    await grant('/user/temp', { platform: 'default', role: 'default-viewer' })
    await grant('/group/temps', { media: 'news', role: 'default-editor' })
    const user = await em().findOneOrFail(UserEntity, { username: 'temp' })
    const group = await em().findOneOrFail(GroupEntity, { slug: 'temps' })
    expect(await count({ user: user.id })).toBe(1)
    expect(await count({ group: group.id })).toBe(1)
    await em().nativeDelete(UserEntity, { id: user.id })
    expect(await count({ user: user.id })).toBe(0)
    expect(await em().count(GroupMemberEntity, { group: group.id })).toBe(0)
    expect(await count({ group: group.id })).toBe(1)
    await em().nativeDelete(GroupEntity, { id: group.id })
    expect(await count({ group: group.id })).toBe(0)
    expectAccesses(await app.client.get('/platform/default/accesses'), 200, '/platform/default/accesses', [])
  })

  it('accesses go with their object and everything below it (authz.objects-deleted)', async () => {
    const home = { kind: 'platform', id: platforms.default!.id }
    const doomed = tree.add('media', 'doomed', home)
    const doomedLive = tree.add('stream', 'doomed-live', doomed)
    const doomedClip = tree.add('resource', 'doomed-clip', doomedLive)
    await grant('/user/frank', { media: 'doomed', role: 'default-viewer' })
    await grant('/user/frank', { media: 'sport', role: 'default-viewer' })
    await grant('/group/newsroom', { stream: 'doomed-live', role: 'default-editor' })
    await grant('/user/frank', { resource: 'doomed-clip', role: 'default-editor' })
    expect((await app.client.delete('/media/doomed')).status).toBe(204)
    expectAccesses(await app.client.get('/user/frank/accesses'), 200, '/user/frank/accesses', [
      { subject: ['user', 'frank'], object: ['media', 'sport'], role: 'default-viewer' },
    ])
    expectAccesses(await app.client.get('/group/newsroom/accesses'), 200, '/group/newsroom/accesses', [])
    for (const ref of [doomed, doomedLive, doomedClip])
      expect(await count({ objectKind: ref.kind, objectId: ref.id })).toBe(0)
    // Objects of other kinds with the same ids keep theirs.
    expect(await count({ objectKind: 'media' })).toBe(1)
    await revokeAll('/user/frank')
  })

  it('a role with accesses cannot be deleted (foreign key restrict, on both databases)', async () => {
    await makeRole('default', 'held', ['media.view'])
    await grant('/user/frank', { media: 'news', role: 'held' })
    await expect(em().nativeDelete(RoleEntity, { slug: 'held' })).rejects.toBeInstanceOf(
      ForeignKeyConstraintViolationException,
    )
    expect(await em().count(RoleEntity, { slug: 'held' })).toBe(1)
    await revokeAll('/user/frank')
    expect(await em().nativeDelete(RoleEntity, { slug: 'held' })).toBe(1)
  })
})

describe('roles from a group membership added later', () => {
  it("a member added after the grant holds the group's role at once", async () => {
    await makeGroup('default', 'late', [])
    await grant('/group/late', { media: 'sport', role: 'default-viewer' })
    expectError(await as.frank!.get('/media/sport'), 404, 'No media "sport".')
    await addMember('late', 'frank')
    expect((await as.frank!.get('/media/sport')).status).toBe(200)
    await revokeAll('/group/late')
    expectError(await as.frank!.get('/media/sport'), 404, 'No media "sport".')
  })
})
