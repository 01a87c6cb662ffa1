import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_PROFILE_FLAGS, DEFAULT_PROFILES, PROFILE_FLAGS, ProfileEntity } from '../../../plugins/identity/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import {
  INVALID,
  NEEDS,
  NOT_HELD,
  expectError,
  expectedTable,
  flagTable,
  keysOf,
  makeProfile,
  userWithFlags,
  userWithProfile,
  xmlOf,
} from './permissions.fixtures.js'

type Form = Record<string, string | number>

const UNKNOWN_MODEL =
  'unknown model: use Instance, User, UserRole, UserProfile, Group, Platform, File, Folder, Metadata, Category, Tag, Analytics, VideoRecorder, PlayerTheme, PlayerBehavior, Logo or Clip'
const FILE_ACTIONS =
  'create, edit, delete, record, private_share, publish_animation, publish_audio, publish_binary, publish_document, publish_image, publish_richmedia, publish_text, publish_video, share or access'
const ONLY_ADMINS_GRANT = 'Only installation administrators grant "instance.view".'
const ONLY_ADMINS_CHANGE = 'Only installation administrators change a profile holding "instance.view".'
const IN_USE = 'This profile is given to users: give them another profile first.'

/** Profile info: exactly href, slug, name, quota, the full flag table (equal to `granted`) and the platform link. */
function expectProfileInfo(
  app: TestApp,
  node: XmlObject,
  expected: { slug: string; name: string; quota: number; granted: string[]; platform?: string },
): void {
  expect(keysOf(node)).toEqual(['@href', 'name', 'permissions', 'platform', 'quota', 'slug'])
  expect(node['@href']).toBe(`${app.url}/profile/${expected.slug}`)
  expect(text(node.slug)).toBe(expected.slug)
  expect(text(node.name)).toBe(expected.name)
  expect(text(node.quota)).toBe(String(expected.quota))
  expect(node.platform).toEqual({ '@href': `${app.url}/platform/${expected.platform ?? 'default'}` })
  expect(Object.keys(node.permissions)).toEqual(Object.keys(PROFILE_FLAGS))
  expect(flagTable(node.permissions)).toEqual(expectedTable(PROFILE_FLAGS, expected.granted))
}

async function createProfile(client: DigestClient, form: Form): Promise<XmlObject> {
  return xmlOf(await client.post('/platform/default/profiles', { form }), 201).profile as XmlObject
}

const slugsOf = (doc: XmlObject): string[] => list<XmlObject>(doc.profiles.profile).map((p) => text(p.slug))

describe('profiles API', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('GET /platform/<slug>/profiles lists slug, name and the platform link of each profile', async () => {
    const res = await app.client.get('/platform/default/profiles')
    const doc = xmlOf(res, 200)
    expect(doc.profiles['@href']).toBe(`${app.url}/platform/default/profiles`)
    const profiles = list<XmlObject>(doc.profiles.profile)
    expect(profiles.map((p) => [text(p.slug), text(p.name)])).toEqual([
      ['default-administrator', 'Administrator'],
      ['default-publisher', 'Publisher'],
      ['default-viewer', 'Viewer'],
      ['default-installation-administrator', 'Installation administrator'],
    ])
    for (const profile of profiles) {
      expect(keysOf(profile)).toEqual(['@href', 'name', 'platform', 'slug'])
      expect(profile['@href']).toBe(`${app.url}/profile/${text(profile.slug)}`)
      expect(profile.platform).toEqual({ '@href': `${app.url}/platform/default` })
    }
    expect(res.headers['content-range']).toBe('entities 0-3/4')
    const page = await app.client.get('/platform/default/profiles', { headers: { range: 'entities=1-2' } })
    expect(slugsOf(xmlOf(page, 200))).toEqual(['default-publisher', 'default-viewer'])
    expect(page.headers['content-range']).toBe('entities 1-2/4')
  })

  it('GET /profile/<slug> answers quota, every flag of every model as 1/0, and the platform', async () => {
    const res = await app.client.get('/profile/default-publisher')
    expectProfileInfo(app, xmlOf(res, 200).profile, {
      slug: 'default-publisher',
      name: 'Publisher',
      quota: 0,
      granted: DEFAULT_PROFILES[1]!.permissions,
    })
    expect(res.body).toContain('<quota>0</quota>')
    expect(res.body).toContain('<permissions><instance><view>0</view></instance><user><view>1</view><create>0</create>')
    expectProfileInfo(app, xmlOf(await app.client.get('/profile/default-installation-administrator'), 200).profile, {
      slug: 'default-installation-administrator',
      name: 'Installation administrator',
      quota: 0,
      granted: ALL_PROFILE_FLAGS,
    })
    expectError(await app.client.get('/profile/ghost'), 404, 'No profile "ghost".')
  })

  it('POST /platform/<slug>/profiles answers 201 with profile info; unsent flags are 0', async () => {
    const profile = await createProfile(app.client, {
      name: 'Uploader',
      quota: 1073741824,
      'permission[File][create]': 1,
      'permission[Folder][create]': 1,
      'permission[PlayerTheme][use]': 1,
      'permission[Tag][manage]': 0,
    })
    const expected = {
      slug: 'uploader',
      name: 'Uploader',
      quota: 1073741824,
      granted: ['file.create', 'folder.create', 'player_theme.use'],
    }
    expectProfileInfo(app, profile, expected)
    expectProfileInfo(app, xmlOf(await app.client.get('/profile/uploader'), 200).profile, expected)
    expect(slugsOf(xmlOf(await app.client.get('/platform/default/profiles'), 200)).at(-1)).toBe('uploader')
    expectProfileInfo(app, await createProfile(app.client, { name: 'Empty', quota: 0 }), {
      slug: 'empty',
      name: 'Empty',
      quota: 0,
      granted: [],
    })
    const big = await createProfile(app.client, { name: 'Big', quota: Number.MAX_SAFE_INTEGER })
    expect(text(big.quota)).toBe(String(Number.MAX_SAFE_INTEGER))
  })

  it('models are accepted in CamelCase, snake_case and lowercase', async () => {
    const profile = await createProfile(app.client, {
      name: 'Spellings',
      quota: 5,
      'permission[UserRole][view]': 1,
      'permission[user_profile][view]': 1,
      'permission[videorecorder][use]': 1,
      'permission[Player_Behavior][use]': 1,
      'permission[VIDEO_RECORDER][manage]': 'true',
    })
    expectProfileInfo(app, profile, {
      slug: 'spellings',
      name: 'Spellings',
      quota: 5,
      granted: [
        'user_role.view',
        'user_profile.view',
        'video_recorder.manage',
        'video_recorder.use',
        'player_behavior.use',
      ],
    })
  })

  it('granting any flag of a model that has a view grants its view (profiles too)', async () => {
    const profile = await createProfile(app.client, {
      name: 'Implied',
      quota: 0,
      'permission[User][edit]': 1,
      'permission[Group][view]': 0,
      'permission[Group][manage_access]': 1,
      'permission[File][delete]': 1,
      'permission[Category][manage]': 1,
    })
    expectProfileInfo(app, profile, {
      slug: 'implied',
      name: 'Implied',
      quota: 0,
      // file and category have no view flag: nothing is implied for them.
      granted: ['user.view', 'user.edit', 'group.view', 'group.manage_access', 'file.delete', 'category.manage'],
    })
  })

  it('validates name, quota and permissions, listing every failure (412)', async () => {
    const post = (form: Form) => app.client.post('/platform/default/profiles', { form })
    expectError(await post({}), 412, INVALID, { name: 'is required', quota: 'is required' })
    expectError(await post({ name: '', quota: '' }), 412, INVALID, { name: 'is required', quota: 'is required' })
    expectError(await post({ name: 'p'.repeat(256), quota: 0 }), 412, INVALID, {
      name: 'must be at most 255 characters',
    })
    expectError(await post({ name: 'X', quota: 'abc' }), 412, INVALID, { quota: 'must be a whole number' })
    expectError(await post({ name: 'X', quota: '1.5' }), 412, INVALID, { quota: 'must be a whole number' })
    expectError(await post({ name: 'X', quota: -1 }), 412, INVALID, { quota: 'must be 0 or more' })
    expectError(await post({ name: 'X', quota: 0, 'permission[Media][view]': 1 }), 412, INVALID, {
      'permission[Media][view]': UNKNOWN_MODEL,
    })
    expectError(await post({ name: 'X', quota: 0, 'permission[File][view]': 1 }), 412, INVALID, {
      'permission[File][view]': `unknown action: File has ${FILE_ACTIONS}`,
    })
    expectError(await post({ name: 'X', quota: 0, 'permission[UserRole][fly]': 1 }), 412, INVALID, {
      'permission[UserRole][fly]': 'unknown action: UserRole has view, create, edit or delete',
    })
    expectError(await post({ name: 'X', quota: 0, 'permission[Tag][use]': 2 }), 412, INVALID, {
      'permission[Tag][use]': 'must be 0 or 1',
    })
    expectError(await post({ name: 'X', quota: 0, permission: 'all' }), 412, INVALID, {
      permission: 'must be sent as permission[<Model>][<action>]',
    })
    expectError(await post({ name: '', quota: -1, 'permission[Logo][use]': 'x' }), 412, INVALID, {
      name: 'is required',
      quota: 'must be 0 or more',
      'permission[Logo][use]': 'must be 0 or 1',
    })
    expect(await app.kernel.em().count(ProfileEntity, { name: 'X' })).toBe(0)
  })

  it('slugs come from the name, get -2 on clash and never change', async () => {
    expect(text((await createProfile(app.client, { name: 'Twin', quota: 0 })).slug)).toBe('twin')
    expect(text((await createProfile(app.client, { name: 'twin', quota: 0 })).slug)).toBe('twin-2')
    expect(text(xmlOf(await app.client.put('/profile/twin', { form: { name: 'Renamed' } }), 200).profile.slug)).toBe(
      'twin',
    )
    expectError(await app.client.get('/profile/renamed'), 404, 'No profile "renamed".')
  })

  it('PUT /profile/<slug> changes only what is sent', async () => {
    await createProfile(app.client, { name: 'Partial', quota: 10, 'permission[Tag][use]': 1 })
    const put = (form: Form) => app.client.put('/profile/partial', { form })
    const base = { slug: 'partial', name: 'Partial', quota: 10, granted: ['tag.use'] }
    expectProfileInfo(app, xmlOf(await put({}), 200).profile, base)
    expectProfileInfo(app, xmlOf(await put({ quota: 20 }), 200).profile, { ...base, quota: 20 })
    expectProfileInfo(
      app,
      xmlOf(await put({ 'permission[Group][delete]': 1, 'permission[Tag][use]': 0 }), 200).profile,
      {
        ...base,
        quota: 20,
        granted: ['group.view', 'group.delete'],
      },
    )
    expectProfileInfo(app, xmlOf(await put({ name: 'Partial 2', 'permission[group][view]': 0 }), 200).profile, {
      ...base,
      name: 'Partial 2',
      quota: 20,
      granted: ['group.view', 'group.delete'],
    })
    expectError(await put({ quota: '' }), 412, INVALID, { quota: 'cannot be empty' })
    expectError(await put({ name: '', quota: 'x' }), 412, INVALID, {
      name: 'cannot be empty',
      quota: 'must be a whole number',
    })
    expectError(await put({ 'permission[Group][fly]': 0 }), 412, INVALID, {
      'permission[Group][fly]': 'unknown action: Group has view, create, edit, delete or manage_access',
    })
    expectProfileInfo(app, xmlOf(await app.client.get('/profile/partial'), 200).profile, {
      ...base,
      name: 'Partial 2',
      quota: 20,
      granted: ['group.view', 'group.delete'],
    })
    expectError(await app.client.put('/profile/ghost', { form: { quota: 1 } }), 404, 'No profile "ghost".')
  })

  it('DELETE /profile/<slug> answers 204; a profile given to users is kept (412)', async () => {
    await createProfile(app.client, { name: 'Used', quota: 0 })
    await userWithProfile(app, 'user-one', 'used')
    expectError(await app.client.delete('/profile/used'), 412, IN_USE, { profile: 'is the profile of a user' })
    await userWithProfile(app, 'user-two', 'used')
    expectError(await app.client.delete('/profile/used'), 412, IN_USE, { profile: 'is the profile of 2 users' })
    expect((await app.client.get('/profile/used')).status).toBe(200)
    await createProfile(app.client, { name: 'Unused', quota: 0 })
    const res = await app.client.delete('/profile/unused')
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expectError(await app.client.get('/profile/unused'), 404, 'No profile "unused".')
    expectError(await app.client.delete('/profile/unused'), 404, 'No profile "unused".')
  })

  it('answers 401 without credentials', async () => {
    for (const [method, path] of [
      ['GET', '/platform/default/profiles'],
      ['POST', '/platform/default/profiles'],
      ['GET', '/profile/default-viewer'],
      ['PUT', '/profile/default-viewer'],
      ['DELETE', '/profile/default-viewer'],
    ] as const) {
      expect((await rawRequest(`${app.url}${path}`, method)).status).toBe(401)
    }
  })
})

describe('profile authorization', () => {
  let app: TestApp
  let other: string

  beforeAll(async () => {
    app = await startApp()
    other = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201).platform
        .slug,
    )
  })
  afterAll(async () => app?.close())

  it('user_profile.view alone reads profiles; every change is 403', async () => {
    const viewer = await userWithFlags(app, 'viewer', ['platform.view', 'user_profile.view'])
    expect(slugsOf(xmlOf(await viewer.get('/platform/default/profiles'), 200))).toContain('default-viewer')
    expect(text(xmlOf(await viewer.get('/profile/default-viewer'), 200).profile.name)).toBe('Viewer')
    expectError(
      await viewer.post('/platform/default/profiles', { form: { name: 'Mine', quota: 0 } }),
      403,
      NEEDS('user_profile.create'),
    )
    expectError(
      await viewer.put('/profile/default-viewer', { form: { name: 'Mine' } }),
      403,
      NEEDS('user_profile.edit'),
    )
    expectError(await viewer.delete('/profile/default-viewer'), 403, NEEDS('user_profile.delete'))
  })

  it('without user_profile.view profiles are invisible (404) and the list is 403', async () => {
    const blind = await userWithFlags(app, 'blind', ['platform.view', 'user_profile.edit', 'user_profile.delete'])
    const msg = 'No profile "default-viewer".'
    expectError(await blind.get('/platform/default/profiles'), 403, NEEDS('user_profile.view'))
    expectError(await blind.get('/profile/default-viewer'), 404, msg)
    expectError(await blind.put('/profile/default-viewer', { form: { name: 'X' } }), 404, msg)
    expectError(await blind.delete('/profile/default-viewer'), 404, msg)
  })

  it('profiles of another platform are invisible (404), even to its administrators', async () => {
    const stranger = await app.createUser({ username: 'stranger', platform: other })
    const msg = 'No profile "default-viewer".'
    expectError(await stranger.get('/platform/default/profiles'), 404, 'No platform "default".')
    expectError(
      await stranger.post('/platform/default/profiles', { form: { name: 'X', quota: 0 } }),
      404,
      'No platform "default".',
    )
    expectError(await stranger.get('/profile/default-viewer'), 404, msg)
    expectError(await stranger.put('/profile/default-viewer', { form: { name: 'X' } }), 404, msg)
    expectError(await stranger.delete('/profile/default-viewer'), 404, msg)
    const own = xmlOf(await stranger.get(`/platform/${other}/profiles`), 200)
    expect(slugsOf(own)).toEqual([`${other}-administrator`, `${other}-publisher`, `${other}-viewer`])
    expect(list<XmlObject>(own.profiles.profile)[0]!.platform).toEqual({ '@href': `${app.url}/platform/${other}` })
  })

  describe('no privilege escalation', () => {
    let profiler: DigestClient
    let owner: DigestClient
    beforeAll(async () => {
      profiler = await userWithFlags(app, 'profiler', [
        'platform.view',
        'user_profile.view',
        'user_profile.create',
        'user_profile.edit',
        'user_profile.delete',
        'file.create',
      ])
      // The platform's own administrator: every profile flag but instance.view.
      owner = await app.createUser({ username: 'owner' })
    })

    it('a profile may only grant flags the caller holds (403 otherwise)', async () => {
      const ok = await profiler.post('/platform/default/profiles', {
        form: { name: 'Files', quota: 0, 'permission[File][create]': 1, 'permission[UserProfile][view]': 1 },
      })
      expect(text(xmlOf(ok, 201).profile.permissions.file.create)).toBe('1')
      expectError(
        await profiler.post('/platform/default/profiles', {
          form: { name: 'More', quota: 0, 'permission[File][delete]': 1, 'permission[User][edit]': 1 },
        }),
        403,
        NOT_HELD(['user.view', 'user.edit', 'file.delete']),
      )
      // The same rule through POST /platform/<slug>/roles with quota.
      expectError(
        await profiler.post('/platform/default/roles', {
          form: { name: 'More', quota: 0, 'permission[File][delete]': 1 },
        }),
        403,
        NOT_HELD(['file.delete']),
      )
      expect(await app.kernel.em().count(ProfileEntity, { name: 'More' })).toBe(0)
    })

    it('on update only added flags count: renaming or removing from a stronger profile is allowed', async () => {
      const slug = await makeProfile(app, ['user.view', 'user.delete', 'file.create'])
      expect(text(xmlOf(await profiler.put(`/profile/${slug}`, { form: { name: 'Weaker' } }), 200).profile.name)).toBe(
        'Weaker',
      )
      const removed = xmlOf(await profiler.put(`/profile/${slug}`, { form: { 'permission[User][delete]': 0 } }), 200)
      expect(text(removed.profile.permissions.user.delete)).toBe('0')
      expectError(
        await profiler.put(`/profile/${slug}`, { form: { 'permission[User][delete]': 1 } }),
        403,
        NOT_HELD(['user.delete']),
      )
      expectError(
        await profiler.put(`/profile/${slug}`, { form: { 'permission[Metadata][manage]': 1, quota: 0 } }),
        403,
        NOT_HELD(['metadata.manage']),
      )
    })

    it('instance.view is granted only by installation administrators', async () => {
      const form = { name: 'Root', quota: 0, 'permission[Instance][view]': 1 }
      expectError(await owner.post('/platform/default/profiles', { form }), 403, ONLY_ADMINS_GRANT)
      expectError(await profiler.post('/platform/default/profiles', { form }), 403, ONLY_ADMINS_GRANT)
      expectError(
        await owner.put('/profile/default-administrator', { form: { 'permission[instance][view]': 1 } }),
        403,
        ONLY_ADMINS_GRANT,
      )
      // Every other flag is theirs to grant.
      const all = Object.fromEntries(
        ALL_PROFILE_FLAGS.filter((f) => f !== 'instance.view').map((flag) => {
          const [model, action] = flag.split('.')
          return [`permission[${model}][${action}]`, 1]
        }),
      )
      const everything = xmlOf(
        await owner.post('/platform/default/profiles', { form: { name: 'All', quota: 0, ...all } }),
        201,
      )
      expect(flagTable(everything.profile.permissions)).toEqual(
        expectedTable(
          PROFILE_FLAGS,
          ALL_PROFILE_FLAGS.filter((f) => f !== 'instance.view'),
        ),
      )
      const root = xmlOf(await app.client.post('/platform/default/profiles', { form }), 201)
      expect(text(root.profile.permissions.instance.view)).toBe('1')
    })

    it('a profile holding instance.view is changed or deleted only by installation administrators', async () => {
      const slug = 'default-installation-administrator'
      expectError(await owner.put(`/profile/${slug}`, { form: { name: 'Demoted' } }), 403, ONLY_ADMINS_CHANGE)
      expectError(
        await owner.put(`/profile/${slug}`, { form: { 'permission[Instance][view]': 0 } }),
        403,
        ONLY_ADMINS_CHANGE,
      )
      expectError(await owner.delete(`/profile/${slug}`), 403, ONLY_ADMINS_CHANGE)
      expectError(await owner.delete('/profile/root'), 403, ONLY_ADMINS_CHANGE)
      expect(text(xmlOf(await app.client.get(`/profile/${slug}`), 200).profile.name)).toBe('Installation administrator')
      expect((await app.client.delete('/profile/root')).status).toBe(204)
    })

    it('instance.view cannot be taken from the last installation administrators (412)', async () => {
      const slug = 'default-installation-administrator'
      const revoke = { 'permission[Instance][view]': 0 }
      expectError(
        await app.client.put(`/profile/${slug}`, { form: revoke }),
        412,
        'Its users are the last installation administrators: give another user this permission first.',
        { 'permission[Instance][view]': 'would leave the installation without an administrator' },
      )
      expect(text(xmlOf(await app.client.get(`/profile/${slug}`), 200).profile.permissions.instance.view)).toBe('1')
      // With another installation administrator, it may be taken (and given back by them).
      const second = await userWithProfile(app, 'second-admin', await makeProfile(app, ['instance.view'], other))
      expect(
        text(xmlOf(await app.client.put(`/profile/${slug}`, { form: revoke }), 200).profile.permissions.instance.view),
      ).toBe('0')
      expect((await app.client.get('/platforms')).status).toBe(403)
      const back = await second.put(`/profile/${slug}`, { form: { 'permission[Instance][view]': 1 } })
      expect(text(xmlOf(back, 200).profile.permissions.instance.view)).toBe('1')
      expect((await app.client.get('/platforms')).status).toBe(200)
    })
  })
})
