import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccessEntity, ALL_ROLE_FLAGS, ROLE_FLAGS, RoleEntity } from '../../../plugins/identity/index.js'
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
  grantOnPlatform,
  keysOf,
  userWithFlags,
  xmlOf,
} from './permissions.fixtures.js'

type Form = Record<string, string | number>

const MEDIA_ACTIONS = 'view, view_protected, create, edit, delete, change_theme or manage_access'
const UNKNOWN_MODEL = 'unknown model: use Platform, Media, Stream or Resource'
const PROFILE_UNKNOWN_MODEL =
  'unknown model: use Instance, User, UserRole, UserProfile, Group, Platform, File, Folder, Metadata, Category, Tag, Analytics, VideoRecorder, PlayerTheme, PlayerBehavior, Logo or Clip'
const SHAPE = 'must be sent as permission[<Model>][<action>]'

/** Role info: exactly href, slug, name, the platform link and the full flag table, which must equal `granted`. */
function expectRoleInfo(app: TestApp, node: XmlObject, slug: string, name: string, granted: string[]): void {
  expect(keysOf(node)).toEqual(['@href', 'name', 'permissions', 'platform', 'slug'])
  expect(node['@href']).toBe(`${app.url}/role/${slug}`)
  expect(text(node.slug)).toBe(slug)
  expect(text(node.name)).toBe(name)
  expect(node.platform).toEqual({ '@href': `${app.url}/platform/default` })
  expect(Object.keys(node.permissions)).toEqual(['platform', 'media', 'stream', 'resource'])
  expect(flagTable(node.permissions)).toEqual(expectedTable(ROLE_FLAGS, granted))
}

async function createRole(client: DigestClient, form: Form): Promise<XmlObject> {
  return xmlOf(await client.post('/platform/default/roles', { form }), 201).role as XmlObject
}

const slugsOf = (doc: XmlObject): string[] => list<XmlObject>(doc.roles.role).map((r) => text(r.slug))

describe('roles API', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('GET /platform/<slug>/roles lists the default roles with href, slug and name', async () => {
    const res = await app.client.get('/platform/default/roles')
    const doc = xmlOf(res, 200)
    expect(doc.roles['@href']).toBe(`${app.url}/platform/default/roles`)
    const roles = list<XmlObject>(doc.roles.role)
    expect(roles.map((r) => [text(r.slug), text(r.name)])).toEqual([
      ['default-manager', 'Manager'],
      ['default-editor', 'Editor'],
      ['default-viewer', 'Viewer'],
    ])
    for (const role of roles) {
      expect(keysOf(role)).toEqual(['@href', 'name', 'slug'])
      expect(role['@href']).toBe(`${app.url}/role/${text(role.slug)}`)
    }
    expect(res.headers['content-range']).toBe('entities 0-2/3')
    const page = await app.client.get('/platform/default/roles', { headers: { range: 'entities=2-' } })
    expect(slugsOf(xmlOf(page, 200))).toEqual(['default-viewer'])
    expect(page.headers['content-range']).toBe('entities 2-2/3')
  })

  it('GET /role/<slug> answers the full 1/0 flag table per model', async () => {
    const res = await app.client.get('/role/default-viewer')
    const role = xmlOf(res, 200).role as XmlObject
    expectRoleInfo(app, role, 'default-viewer', 'Viewer', [
      'platform.view',
      'media.view',
      'stream.view',
      'resource.view',
    ])
    expectRoleInfo(
      app,
      xmlOf(await app.client.get('/role/default-manager'), 200).role,
      'default-manager',
      'Manager',
      ALL_ROLE_FLAGS,
    )
    // Flags are plain text 1 / 0, one element per action inside one element per model.
    const table = Object.entries(ROLE_FLAGS)
      .map(
        ([model, actions]) =>
          `<${model}>${actions.map((a) => `<${a}>${a === 'view' ? 1 : 0}</${a}>`).join('')}</${model}>`,
      )
      .join('')
    expect(res.body).toContain(`<permissions>${table}</permissions>`)
    expectError(await app.client.get('/role/ghost'), 404, 'No role "ghost".')
  })

  it('POST /platform/<slug>/roles answers 201 with role info; unsent flags are 0', async () => {
    const res = await app.client.post('/platform/default/roles', {
      form: {
        name: 'Curator',
        'permission[Media][view]': 1,
        'permission[Resource][export]': 1,
        'permission[Stream][edit]': 0,
      },
    })
    expectRoleInfo(app, xmlOf(res, 201).role, 'curator', 'Curator', ['media.view', 'resource.view', 'resource.export'])
    expectRoleInfo(app, xmlOf(await app.client.get('/role/curator'), 200).role, 'curator', 'Curator', [
      'media.view',
      'resource.view',
      'resource.export',
    ])
    expectRoleInfo(app, await createRole(app.client, { name: 'Nothing' }), 'nothing', 'Nothing', [])
    expect(slugsOf(xmlOf(await app.client.get('/platform/default/roles'), 200)).slice(-2)).toEqual([
      'curator',
      'nothing',
    ])
  })

  it('granting any flag of a model grants its view, even against view=0', async () => {
    const role = await createRole(app.client, {
      name: 'Implied',
      'permission[Stream][delete]': 1,
      'permission[Stream][view]': 0,
      'permission[Platform][edit]': 'true',
    })
    expectRoleInfo(app, role, 'implied', 'Implied', ['platform.view', 'platform.edit', 'stream.view', 'stream.delete'])
    expect(await app.kernel.em().findOneOrFail(RoleEntity, { slug: 'implied' })).toMatchObject({
      permissions: ['platform.view', 'platform.edit', 'stream.view', 'stream.delete'],
    })
  })

  it('models and actions are also accepted in lowercase, any case, values 0/1/true/false', async () => {
    const role = await createRole(app.client, {
      name: 'Lower',
      'permission[media][edit]': 1,
      'permission[RESOURCE][Activate_Rating]': 'TRUE',
      'permission[stream][view]': 'false',
    })
    expectRoleInfo(app, role, 'lower', 'Lower', [
      'media.view',
      'media.edit',
      'resource.view',
      'resource.activate_rating',
    ])
  })

  it('validates name and permissions, listing every failure (412)', async () => {
    const post = (form: Form) => app.client.post('/platform/default/roles', { form })
    expectError(await post({}), 412, INVALID, { name: 'is required' })
    expectError(await post({ name: '' }), 412, INVALID, { name: 'is required' })
    expectError(await post({ name: 'r'.repeat(256) }), 412, INVALID, { name: 'must be at most 255 characters' })
    expectError(await post({ name: 'X', 'permission[Media][fly]': 1 }), 412, INVALID, {
      'permission[Media][fly]': `unknown action: Media has ${MEDIA_ACTIONS}`,
    })
    expectError(await post({ name: 'X', 'permission[Foo][view]': 1 }), 412, INVALID, {
      'permission[Foo][view]': UNKNOWN_MODEL,
    })
    // Profile models are not role models.
    expectError(await post({ name: 'X', 'permission[User][view]': 1 }), 412, INVALID, {
      'permission[User][view]': UNKNOWN_MODEL,
    })
    for (const value of ['2', 'yes', '', '-1', '01x']) {
      expectError(await post({ name: 'X', 'permission[Media][edit]': value }), 412, INVALID, {
        'permission[Media][edit]': 'must be 0 or 1',
      })
    }
    expectError(await post({ name: 'X', permission: '1' }), 412, INVALID, { permission: SHAPE })
    expectError(await post({ name: 'X', 'permission[Media]': '1' }), 412, INVALID, { 'permission[Media]': SHAPE })
    expectError(await post({ name: 'X', 'permission[Media][edit][x]': '1' }), 412, INVALID, {
      'permission[Media][edit]': 'must be a single value',
    })
    expectError(
      await post({
        name: '',
        'permission[Media][fly]': 1,
        'permission[Stream][edit]': 5,
        'permission[Media][edit]': 1,
      }),
      412,
      INVALID,
      {
        name: 'is required',
        'permission[Media][fly]': `unknown action: Media has ${MEDIA_ACTIONS}`,
        'permission[Stream][edit]': 'must be 0 or 1',
      },
    )
    expect(await app.kernel.em().count(RoleEntity, { name: 'X' })).toBe(0)
  })

  it('slugs come from the name, get -2 on clash and never change', async () => {
    expect(text((await createRole(app.client, { name: 'Twin' })).slug)).toBe('twin')
    expect(text((await createRole(app.client, { name: 'TWIN!' })).slug)).toBe('twin-2')
    const put = await app.client.put('/role/twin', { form: { name: 'Renamed' } })
    expect(text(xmlOf(put, 200).role.slug)).toBe('twin')
    expectError(await app.client.get('/role/renamed'), 404, 'No role "renamed".')
  })

  it('PUT /role/<slug> changes only the flags sent, name optional, implied view applied', async () => {
    await createRole(app.client, { name: 'Partial', 'permission[Media][edit]': 1, 'permission[Stream][view]': 1 })
    const put = (form: Form) => app.client.put('/role/partial', { form })
    expectRoleInfo(app, xmlOf(await put({ 'permission[Resource][delete]': 1 }), 200).role, 'partial', 'Partial', [
      'media.view',
      'media.edit',
      'stream.view',
      'resource.view',
      'resource.delete',
    ])
    // view=0 while another flag of the model stays: the implied view wins.
    expectRoleInfo(
      app,
      xmlOf(await put({ 'permission[Media][view]': 0, name: 'Partial 2' }), 200).role,
      'partial',
      'Partial 2',
      ['media.view', 'media.edit', 'stream.view', 'resource.view', 'resource.delete'],
    )
    expectRoleInfo(
      app,
      xmlOf(
        await put({ 'permission[Media][view]': 0, 'permission[Media][edit]': 0, 'permission[stream][view]': 0 }),
        200,
      ).role,
      'partial',
      'Partial 2',
      ['resource.view', 'resource.delete'],
    )
    expectRoleInfo(app, xmlOf(await put({}), 200).role, 'partial', 'Partial 2', ['resource.view', 'resource.delete'])
    expectError(await put({ name: '' }), 412, INVALID, { name: 'cannot be empty' })
    expectError(await put({ name: 'n'.repeat(256) }), 412, INVALID, { name: 'must be at most 255 characters' })
    expectError(await put({ 'permission[Media][fly]': 1, 'permission[Resource][view]': 0 }), 412, INVALID, {
      'permission[Media][fly]': `unknown action: Media has ${MEDIA_ACTIONS}`,
    })
    expectRoleInfo(app, xmlOf(await app.client.get('/role/partial'), 200).role, 'partial', 'Partial 2', [
      'resource.view',
      'resource.delete',
    ])
    expectError(await app.client.put('/role/ghost', { form: { name: 'x' } }), 404, 'No role "ghost".')
  })

  it('DELETE /role/<slug> answers 204; a role granted by accesses is kept (412)', async () => {
    await createRole(app.client, { name: 'Granted', 'permission[Media][view]': 1 })
    await app.createUser({ username: 'grantee' })
    await app.createUser({ username: 'grantee2' })
    await grantOnPlatform(app, 'grantee', 'granted')
    const msg = 'This role is granted by accesses: delete them first.'
    expectError(await app.client.delete('/role/granted'), 412, msg, { role: 'is used by an access' })
    await grantOnPlatform(app, 'grantee2', 'granted')
    expectError(await app.client.delete('/role/granted'), 412, msg, { role: 'is used by 2 accesses' })
    expect((await app.client.get('/role/granted')).status).toBe(200)
    const em = app.kernel.em()
    await em.nativeDelete(AccessEntity, { role: { slug: 'granted' } })
    const res = await app.client.delete('/role/granted')
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expectError(await app.client.get('/role/granted'), 404, 'No role "granted".')
    expectError(await app.client.delete('/role/granted'), 404, 'No role "granted".')
    expect(slugsOf(xmlOf(await app.client.get('/platform/default/roles'), 200))).not.toContain('granted')
  })

  it('POST /platform/<slug>/roles with quota creates a profile instead (201, profile info)', async () => {
    const res = await app.client.post('/platform/default/roles', {
      form: { name: 'Via Roles', quota: 1024, 'permission[File][create]': 1, 'permission[UserRole][edit]': 1 },
    })
    const profile = xmlOf(res, 201).profile as XmlObject
    expect(text(profile.slug)).toBe('via-roles')
    expect(text(profile.quota)).toBe('1024')
    expect(text(profile.permissions.file.create)).toBe('1')
    expect(text(profile.permissions.user_role.view)).toBe('1')
    expect(text(xmlOf(await app.client.get('/profile/via-roles'), 200).profile.name)).toBe('Via Roles')
    expectError(await app.client.get('/role/via-roles'), 404, 'No role "via-roles".')
    // The profile rules apply: quota is validated, profile models are used.
    expectError(
      await app.client.post('/platform/default/roles', {
        form: { name: 'Bad', quota: 'abc', 'permission[Media][view]': 1 },
      }),
      412,
      INVALID,
      { quota: 'must be a whole number', 'permission[Media][view]': PROFILE_UNKNOWN_MODEL },
    )
  })

  it('answers 401 without credentials', async () => {
    for (const [method, path] of [
      ['GET', '/platform/default/roles'],
      ['POST', '/platform/default/roles'],
      ['GET', '/role/default-viewer'],
      ['PUT', '/role/default-viewer'],
      ['DELETE', '/role/default-viewer'],
    ] as const) {
      expect((await rawRequest(`${app.url}${path}`, method)).status).toBe(401)
    }
  })
})

describe('role authorization', () => {
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

  it('user_role.view alone reads roles; every change is 403', async () => {
    const viewer = await userWithFlags(app, 'viewer', ['platform.view', 'user_role.view'])
    expect(slugsOf(xmlOf(await viewer.get('/platform/default/roles'), 200))).toEqual([
      'default-manager',
      'default-editor',
      'default-viewer',
    ])
    expect(text(xmlOf(await viewer.get('/role/default-editor'), 200).role.name)).toBe('Editor')
    expectError(
      await viewer.post('/platform/default/roles', { form: { name: 'Mine' } }),
      403,
      NEEDS('user_role.create'),
    )
    expectError(await viewer.put('/role/default-editor', { form: { name: 'Mine' } }), 403, NEEDS('user_role.edit'))
    expectError(await viewer.delete('/role/default-editor'), 403, NEEDS('user_role.delete'))
    // With quota, the request is a profile creation and needs user_profile.create.
    expectError(
      await viewer.post('/platform/default/roles', { form: { name: 'Mine', quota: 0 } }),
      403,
      NEEDS('user_profile.create'),
    )
    expect(text(xmlOf(await app.client.get('/role/default-editor'), 200).role.name)).toBe('Editor')
  })

  it('without user_role.view roles are invisible (404) and the list is 403', async () => {
    const blind = await userWithFlags(app, 'blind', ['platform.view', 'user_role.edit', 'user_role.delete'])
    expectError(await blind.get('/platform/default/roles'), 403, NEEDS('user_role.view'))
    expectError(await blind.get('/role/default-editor'), 404, 'No role "default-editor".')
    expectError(await blind.put('/role/default-editor', { form: { name: 'X' } }), 404, 'No role "default-editor".')
    expectError(await blind.delete('/role/default-editor'), 404, 'No role "default-editor".')
  })

  it('roles of another platform are invisible (404), even to its administrators', async () => {
    const stranger = await app.createUser({ username: 'stranger', platform: other })
    expectError(await stranger.get('/platform/default/roles'), 404, 'No platform "default".')
    expectError(await stranger.post('/platform/default/roles', { form: { name: 'X' } }), 404, 'No platform "default".')
    expectError(await stranger.get('/role/default-editor'), 404, 'No role "default-editor".')
    expectError(await stranger.put('/role/default-editor', { form: { name: 'X' } }), 404, 'No role "default-editor".')
    expectError(await stranger.delete('/role/default-editor'), 404, 'No role "default-editor".')
    expect(slugsOf(xmlOf(await stranger.get(`/platform/${other}/roles`), 200))).toEqual([
      `${other}-manager`,
      `${other}-editor`,
      `${other}-viewer`,
    ])
  })

  it('a platform administrator (profile platform.edit) may grant every role flag', async () => {
    const owner = await app.createUser({ username: 'owner' })
    const all = Object.fromEntries(
      ALL_ROLE_FLAGS.map((flag) => {
        const [model, action] = flag.split('.')
        return [`permission[${model![0]!.toUpperCase()}${model!.slice(1)}][${action}]`, 1]
      }),
    )
    const role = xmlOf(await owner.post('/platform/default/roles', { form: { name: 'Everything', ...all } }), 201).role
    expect(Object.values(flagTable(role.permissions)).every((v) => v === '1')).toBe(true)
    expect((await owner.delete(`/role/${text(role.slug)}`)).status).toBe(204)
  })

  describe('no privilege escalation', () => {
    let roler: DigestClient
    beforeAll(async () => {
      roler = await userWithFlags(app, 'roler', [
        'platform.view',
        'user_role.view',
        'user_role.create',
        'user_role.edit',
        'user_role.delete',
      ])
    })

    it('a role may only grant flags the caller holds on the platform (403 otherwise)', async () => {
      // platform.view comes from the caller's profile, which counts on their own platform.
      const ok = await roler.post('/platform/default/roles', {
        form: { name: 'Seeing', 'permission[Platform][view]': 1 },
      })
      expect(text(xmlOf(ok, 201).role.permissions.platform.view)).toBe('1')
      expectError(
        await roler.post('/platform/default/roles', { form: { name: 'Editing', 'permission[Media][edit]': 1 } }),
        403,
        NOT_HELD(['media.view', 'media.edit']),
      )
      expect(await app.kernel.em().count(RoleEntity, { name: 'Editing' })).toBe(0)
    })

    it('role flags held through an access on the platform may be granted', async () => {
      await createRole(app.client, { name: 'Media Editor', 'permission[Media][edit]': 1 })
      await grantOnPlatform(app, 'roler', 'media-editor')
      const role = xmlOf(
        await roler.post('/platform/default/roles', { form: { name: 'Editing', 'permission[Media][edit]': 1 } }),
        201,
      ).role
      expect(flagTable(role.permissions)).toEqual(expectedTable(ROLE_FLAGS, ['media.view', 'media.edit']))
      expectError(
        await roler.post('/platform/default/roles', {
          form: { name: 'More', 'permission[Media][delete]': 1, 'permission[Stream][view]': 1 },
        }),
        403,
        NOT_HELD(['media.delete', 'stream.view']),
      )
    })

    it('on update only added flags count: renaming or removing from a stronger role is allowed', async () => {
      expect(text(xmlOf(await roler.put('/role/default-manager', { form: { name: 'Boss' } }), 200).role.name)).toBe(
        'Boss',
      )
      const removed = xmlOf(
        await roler.put('/role/default-manager', { form: { 'permission[Resource][export]': 0 } }),
        200,
      )
      expect(text(removed.role.permissions.resource.export)).toBe('0')
      expectError(
        await roler.put('/role/default-manager', { form: { 'permission[Resource][export]': 1 } }),
        403,
        NOT_HELD(['resource.export']),
      )
      expectError(
        await roler.put('/role/editing', { form: { 'permission[Stream][edit]': 1, name: 'Sneaky' } }),
        403,
        NOT_HELD(['stream.view', 'stream.edit']),
      )
      expect(text(xmlOf(await app.client.get('/role/editing'), 200).role.name)).toBe('Editing')
      // Installation administrators hold every flag.
      expect(
        (await app.client.put('/role/default-manager', { form: { 'permission[Resource][export]': 1 } })).status,
      ).toBe(200)
    })
  })
})
