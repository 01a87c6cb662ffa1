import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AccessEntity,
  GroupEntity,
  GroupMemberEntity,
  ProfileEntity,
  RoleEntity,
  UserEntity,
} from '../../plugins/identity/index.js'
import { type Platform, PlatformEntity, createPlatform } from '../../plugins/platforms/index.js'
import type { Authz, HttpError, ObjectRef, Principal } from '../../src/kernel/index.js'
import { randomToken } from '../../src/shared/secrets.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { FakeTree, PLUGINS_WITHOUT_PUBLISHING, fakeKindsPlugin } from '../helpers/test-kinds.js'

/**
 * The kernel's authorization service against real accesses (identity plugin, both
 * databases) and fake media, stream and resource kinds kept in memory.
 */
const tree = new FakeTree()
let app: TestApp
let authz: Authz
const platforms: Record<string, Platform> = {}
const refs: Record<string, ObjectRef> = {}

const em = () => app.kernel.em()

/** The principal of a user as authentication builds it (profile flags read fresh each time). */
async function principal(username: string): Promise<Principal> {
  const found = await app.kernel.services.ports.get('credentials').findByUsername(username)
  if (!found) throw new Error(`no user ${username}`)
  return found
}

async function makeUser(username: string, platform: string, permissions: string[] | 'admin'): Promise<number> {
  await app.createUser({ username, platform: platforms[platform]!.slug, admin: permissions === 'admin' })
  const fork = em()
  const user = await fork.findOneOrFail(UserEntity, { username })
  if (permissions !== 'admin') {
    user.profile = fork.create(ProfileEntity, {
      slug: `profile-of-${username}`,
      name: `Profile of ${username}`,
      quota: 0,
      permissions,
      platform: platforms[platform]!,
      createdAt: new Date(),
    })
    await fork.flush()
  }
  return user.id
}

async function roleId(platform: string, slug: string, permissions?: string[]): Promise<number> {
  const fork = em()
  const existing = await fork.findOne(RoleEntity, { slug })
  if (existing) return existing.id
  const role = fork.create(RoleEntity, {
    slug,
    name: slug,
    permissions: permissions!,
    platform: platforms[platform]!,
    createdAt: new Date(),
  })
  await fork.flush()
  return role.id
}

/** Writes an access row directly, as the API would (or, for isolation tests, as it never would). */
async function access(row: {
  user?: string
  group?: string
  object: ObjectRef
  role: number
  platform: string
}): Promise<number> {
  const fork = em()
  const created = fork.create(AccessEntity, {
    publicId: randomToken(12),
    user: row.user ? await fork.findOneOrFail(UserEntity, { username: row.user }) : null,
    group: row.group ? await fork.findOneOrFail(GroupEntity, { slug: row.group }) : null,
    objectKind: row.object.kind,
    objectId: row.object.id,
    role: row.role,
    platform: platforms[row.platform]!,
    createdAt: new Date(),
  })
  await fork.flush()
  return created.id
}

async function drop(id: number): Promise<void> {
  await em().nativeDelete(AccessEntity, { id })
}

async function group(platform: string, slug: string, members: string[]): Promise<void> {
  const fork = em()
  const created = fork.create(GroupEntity, { slug, name: slug, platform: platforms[platform]!, createdAt: new Date() })
  for (const username of members) {
    fork.create(GroupMemberEntity, {
      group: created,
      user: await fork.findOneOrFail(UserEntity, { username }),
      createdAt: new Date(),
    })
  }
  await fork.flush()
}

/** The flags as a sorted list ('all' stays 'all'), for readable expectations. */
async function flags(username: string, ref: ObjectRef): Promise<string[] | 'all'> {
  const result = await authz.flagsOn(await principal(username), ref)
  return result === 'all' ? 'all' : [...result].sort()
}

/** The status and message an authorization check throws, or 'ok'. */
async function outcome(check: Promise<void>): Promise<string> {
  try {
    await check
    return 'ok'
  } catch (error) {
    const e = error as HttpError
    return `${e.status} ${e.message}`
  }
}

const EDITOR = ['media.view', 'media.edit', 'stream.view', 'stream.edit', 'resource.view']
const VIEWER = ['platform.view', 'media.view', 'stream.view', 'resource.view']

beforeAll(async () => {
  app = await startApp({ plugins: [fakeKindsPlugin(tree)], config: { plugins: PLUGINS_WITHOUT_PUBLISHING } })
  authz = app.kernel.services.authz
  const fork = em()
  platforms.home = await fork.findOneOrFail(PlatformEntity, { slug: 'default' })
  platforms.away = await createPlatform(app.kernel.emit, fork, { name: 'Away', maxUsers: 0, maxSpace: 0 })
  refs.home = { kind: 'platform', id: platforms.home.id }
  refs.away = { kind: 'platform', id: platforms.away.id }
  // Ids are counted per kind: media 1 and stream 1 are unrelated (stream 1 is under media 2).
  refs.m1 = tree.add('media', 'm1', refs.home)
  refs.m2 = tree.add('media', 'm2', refs.home)
  refs.s1 = tree.add('stream', 's1', refs.m2)
  refs.s2 = tree.add('stream', 's2', refs.m1)
  refs.sub = tree.add('stream', 'sub', refs.s2)
  refs.r1 = tree.add('resource', 'r1', refs.sub)
  refs.awayMedia = tree.add('media', 'away-media', refs.away)
  refs.awayStream = tree.add('stream', 'away-stream', refs.awayMedia)

  await makeUser('root', 'home', 'admin')
  await makeUser('boss', 'home', ['platform.view', 'platform.edit'])
  await makeUser('viewer', 'home', ['platform.view', 'user.view'])
  await makeUser('plain', 'home', [])
  await makeUser('member', 'home', [])
  await makeUser('outsider', 'away', [])
  await roleId('home', 'editor', EDITOR)
  await roleId('home', 'viewer', VIEWER)
  await roleId('away', 'away-manager', ['platform.view', ...EDITOR, 'media.delete', 'stream.delete'])
  await group('home', 'crew', ['member'])
})
afterAll(async () => app?.close())

describe('chain', () => {
  it('walks from an object up to its platform, nearest first', async () => {
    expect(await authz.chain(refs.r1!)).toEqual([refs.r1, refs.sub, refs.s2, refs.m1, refs.home])
    expect(await authz.chain(refs.s1!)).toEqual([refs.s1, refs.m2, refs.home])
    expect(await authz.chain(refs.home!)).toEqual([refs.home])
  })

  it('find and slugOf resolve through the registered kinds', async () => {
    expect(await authz.find('stream', 'sub')).toEqual(refs.sub)
    expect(await authz.find('stream', 'nope')).toBeNull()
    expect(await authz.find('platform', 'away')).toEqual(refs.away)
    expect(await authz.slugOf(refs.r1!)).toBe('r1')
    expect(await authz.slugOf(refs.home!)).toBe('default')
    expect(authz.kindNames()).toEqual(['platform', 'media', 'stream', 'resource'])
    expect(() => authz.kind('channel')).toThrow(/unknown object kind "channel"/)
  })
})

describe('flagsOn', () => {
  it('an installation administrator holds everything, on every platform', async () => {
    for (const ref of [refs.home, refs.r1, refs.away, refs.awayStream]) expect(await flags('root', ref!)).toBe('all')
  })

  it('a platform administrator (profile platform.edit) holds everything on their platform only', async () => {
    for (const ref of [refs.home, refs.m1, refs.r1]) expect(await flags('boss', ref!)).toBe('all')
    expect(await flags('boss', refs.away!)).toEqual([])
    expect(await flags('boss', refs.awayStream!)).toEqual([])
  })

  it('profile flags of the platform model count on the own platform, and nothing else without accesses', async () => {
    expect(await flags('viewer', refs.home!)).toEqual(['platform.view'])
    expect(await flags('viewer', refs.m1!)).toEqual(['platform.view'])
    expect(await flags('viewer', refs.away!)).toEqual([])
    expect(await flags('plain', refs.home!)).toEqual([])
  })

  it('an access applies to its object and everything below it, not to siblings, parents, or other kinds with the same id', async () => {
    const id = await access({ user: 'plain', object: refs.m1!, role: await roleId('home', 'editor'), platform: 'home' })
    for (const ref of [refs.m1, refs.s2, refs.sub, refs.r1])
      expect(await flags('plain', ref!)).toEqual([...EDITOR].sort())
    expect(await flags('plain', refs.m2!)).toEqual([])
    // stream 1 has the id of media 1, under media 2.
    expect(await flags('plain', refs.s1!)).toEqual([])
    expect(await flags('plain', refs.home!)).toEqual([])
    await drop(id)
    expect(await flags('plain', refs.r1!)).toEqual([])
  })

  it('an access on the platform reaches every object of it', async () => {
    const id = await access({
      user: 'plain',
      object: refs.home!,
      role: await roleId('home', 'viewer'),
      platform: 'home',
    })
    for (const ref of [refs.home, refs.m1, refs.m2, refs.s1, refs.r1])
      expect(await flags('plain', ref!)).toEqual([...VIEWER].sort())
    await drop(id)
  })

  it('group accesses count for every member, and only while they are members', async () => {
    const id = await access({ group: 'crew', object: refs.s2!, role: await roleId('home', 'editor'), platform: 'home' })
    expect(await flags('member', refs.sub!)).toEqual([...EDITOR].sort())
    expect(await flags('member', refs.m1!)).toEqual([])
    expect(await flags('plain', refs.sub!)).toEqual([])
    const fork = em()
    const crew = await fork.findOneOrFail(GroupEntity, { slug: 'crew' })
    await fork.nativeDelete(GroupMemberEntity, { group: crew.id })
    expect(await flags('member', refs.sub!)).toEqual([])
    await group('home', 'crew-again', ['member'])
    await drop(id)
  })

  it('own and group accesses add up, down the tree', async () => {
    const viewer = await access({
      user: 'member',
      object: refs.m1!,
      role: await roleId('home', 'viewer'),
      platform: 'home',
    })
    const editor = await access({
      group: 'crew-again',
      object: refs.sub!,
      role: await roleId('home', 'editor'),
      platform: 'home',
    })
    expect(await flags('member', refs.m1!)).toEqual([...VIEWER].sort())
    expect(await flags('member', refs.r1!)).toEqual([...new Set([...VIEWER, ...EDITOR])].sort())
    expect(await authz.can(await principal('member'), 'stream.edit', refs.sub!)).toBe(true)
    expect(await authz.can(await principal('member'), 'stream.edit', refs.s2!)).toBe(false)
    await drop(viewer)
    await drop(editor)
  })
})

describe('tenant isolation, even when access rows point across platforms', () => {
  it("an access on another platform's object grants nothing there", async () => {
    const id = await access({
      user: 'plain',
      object: refs.awayMedia!,
      role: await roleId('away', 'away-manager'),
      platform: 'away',
    })
    expect(await flags('plain', refs.awayMedia!)).toEqual([])
    expect(await flags('plain', refs.awayStream!)).toEqual([])
    expect(
      await outcome(authz.require(await principal('plain'), 'media.view', refs.awayMedia!, { name: 'away-media' })),
    ).toBe('404 No media "away-media".')
    expect(await authz.scope(await principal('plain'), 'media', refs.away!)).toEqual(new Set())
    await drop(id)
  })

  it('a role of another platform, a row filed under another platform, a group of another platform: nothing', async () => {
    const awayRole = await roleId('away', 'away-manager')
    const homeRole = await roleId('home', 'editor')
    const foreignRole = await access({ user: 'plain', object: refs.m1!, role: awayRole, platform: 'home' })
    const misfiled = await access({ user: 'plain', object: refs.m1!, role: homeRole, platform: 'away' })
    await group('away', 'away-crew', ['plain'])
    const foreignGroup = await access({ group: 'away-crew', object: refs.m1!, role: homeRole, platform: 'home' })
    expect(await flags('plain', refs.m1!)).toEqual([])
    expect(await flags('plain', refs.r1!)).toEqual([])
    expect(await authz.scope(await principal('plain'), 'media', refs.home!)).toEqual(new Set())
    for (const id of [foreignRole, misfiled, foreignGroup]) await drop(id)
  })

  it("a user of another platform gets nothing here from accesses on this platform's objects", async () => {
    const id = await access({
      user: 'outsider',
      object: refs.m1!,
      role: await roleId('home', 'editor'),
      platform: 'home',
    })
    expect(await flags('outsider', refs.m1!)).toEqual([])
    expect(await authz.scope(await principal('outsider'), 'media', refs.home!)).toEqual(new Set())
    await drop(id)
  })
})

describe('require, requireProfile, can', () => {
  it("require: 404 without the model's view, 403 with view but not the action, nothing with both", async () => {
    const plain = await principal('plain')
    expect(await outcome(authz.require(plain, 'media.edit', refs.m1!, { name: 'm1' }))).toBe('404 No media "m1".')
    expect(await outcome(authz.require(plain, 'media.edit', refs.m1!))).toBe('404 No such media.')
    const id = await access({
      user: 'plain',
      object: refs.home!,
      role: await roleId('home', 'viewer'),
      platform: 'home',
    })
    expect(await outcome(authz.require(plain, 'media.edit', refs.m1!, { name: 'm1' }))).toBe(
      '403 This needs the "media.edit" permission.',
    )
    expect(await outcome(authz.require(plain, 'media.view', refs.m1!))).toBe('ok')
    expect(await authz.can(plain, 'resource.view', refs.r1!)).toBe(true)
    expect(await authz.can(plain, 'resource.edit', refs.r1!)).toBe(false)
    await drop(id)
    expect(await authz.can(plain, 'resource.view', refs.r1!)).toBe(false)
  })

  it('requireProfile: 404 unless the platform (and the `see` flag) is visible, then 403 without the flag', async () => {
    const viewer = await principal('viewer')
    const id = platforms.home!.id
    expect(
      await outcome(authz.requireProfile(viewer, 'user.view', id, { name: 'x', kind: 'user', see: 'user.view' })),
    ).toBe('ok')
    expect(
      await outcome(authz.requireProfile(viewer, 'user.edit', id, { name: 'x', kind: 'user', see: 'user.view' })),
    ).toBe('403 This needs the "user.edit" permission of your profile.')
    expect(
      await outcome(authz.requireProfile(viewer, 'group.view', id, { name: 'g', kind: 'group', see: 'group.view' })),
    ).toBe('404 No group "g".')
    expect(
      await outcome(authz.requireProfile(viewer, 'user.view', platforms.away!.id, { name: 'x', kind: 'user' })),
    ).toBe('404 No user "x".')
    expect(await outcome(authz.requireProfile(await principal('plain'), 'user.view', id, { name: 'default' }))).toBe(
      '404 No platform "default".',
    )
    expect(await outcome(authz.requireProfile(await principal('root'), 'user.delete', platforms.away!.id))).toBe('ok')
    expect(await outcome(authz.requireProfile(await principal('boss'), 'user.view', id))).toBe(
      '403 This needs the "user.view" permission of your profile.',
    )
  })

  it('hasProfileFlag and requireInstanceAdmin', async () => {
    expect(authz.hasProfileFlag(await principal('viewer'), 'user.view')).toBe(true)
    expect(authz.hasProfileFlag(await principal('viewer'), 'user.edit')).toBe(false)
    expect(authz.hasProfileFlag(await principal('root'), 'anything.at_all')).toBe(true)
    const boss = await principal('boss')
    expect(() => authz.requireInstanceAdmin(boss)).toThrow('This needs the "instance.view" permission of your profile.')
    const root = await principal('root')
    expect(() => authz.requireInstanceAdmin(root)).not.toThrow()
  })
})

describe('scope', () => {
  it('is "all" for whoever sees the container, else the objects granted the kind\'s view directly', async () => {
    expect(await authz.scope(await principal('root'), 'media', refs.away!)).toBe('all')
    expect(await authz.scope(await principal('boss'), 'media', refs.home!)).toBe('all')
    // platform.view on the platform is not media.view: nothing is listed without an access.
    expect(await authz.scope(await principal('viewer'), 'media', refs.home!)).toEqual(new Set())
    const onM2 = await access({
      user: 'plain',
      object: refs.m2!,
      role: await roleId('home', 'viewer'),
      platform: 'home',
    })
    const onS2 = await access({
      group: 'crew-again',
      object: refs.s2!,
      role: await roleId('home', 'editor'),
      platform: 'home',
    })
    expect(await authz.scope(await principal('plain'), 'media', refs.home!)).toEqual(new Set([refs.m2!.id]))
    // Within a media the user sees, every stream; within another, only those granted directly.
    expect(await authz.scope(await principal('plain'), 'stream', refs.m2!)).toBe('all')
    expect(await authz.scope(await principal('member'), 'stream', refs.m1!)).toEqual(new Set([refs.s2!.id]))
    expect(await authz.scope(await principal('member'), 'media', refs.home!)).toEqual(new Set())
    const onHome = await access({
      user: 'member',
      object: refs.home!,
      role: await roleId('home', 'viewer'),
      platform: 'home',
    })
    expect(await authz.scope(await principal('member'), 'media', refs.home!)).toBe('all')
    expect(await authz.scope(await principal('member'), 'media', refs.away!)).toEqual(new Set())
    for (const id of [onM2, onS2, onHome]) await drop(id)
  })
})
