import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GroupEntity, GroupMemberEntity, UserEntity } from '../../../plugins/identity/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { INVALID, NEEDS, expectError, grantOnPlatform, keysOf, userWithFlags, xmlOf } from './permissions.fixtures.js'

/** Creates a group on a platform and returns its slug (asserting 201). */
async function createGroup(client: DigestClient, name: string, platform = 'default'): Promise<string> {
  return text(xmlOf(await client.post(`/platform/${platform}/groups`, { form: { name } }), 201).group.slug)
}

/** Group info: exactly href, slug, name and the platform, users and accesses links. */
function expectGroupInfo(app: TestApp, node: XmlObject, slug: string, name: string, platform = 'default'): void {
  expect(keysOf(node)).toEqual(['@href', 'accesses', 'name', 'platform', 'slug', 'users'])
  expect(node['@href']).toBe(`${app.url}/group/${slug}`)
  expect(text(node.slug)).toBe(slug)
  expect(text(node.name)).toBe(name)
  expect(node.platform).toEqual({ '@href': `${app.url}/platform/${platform}` })
  expect(node.users).toEqual({ '@href': `${app.url}/group/${slug}/users` })
  expect(node.accesses).toEqual({ '@href': `${app.url}/group/${slug}/accesses` })
}

/** A member list: the `users` element of the group, with href, username and email of each member, in order. */
function expectMembers(app: TestApp, doc: XmlObject, group: string, usernames: string[]): void {
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['users'])
  expect(doc.users['@href']).toBe(`${app.url}/group/${group}/users`)
  const users = list<XmlObject>(doc.users.user)
  expect(users.map((u) => text(u.username))).toEqual(usernames)
  for (const user of users) {
    const username = text(user.username)
    expect(keysOf(user)).toEqual(['@href', 'email', 'username'])
    expect(user['@href']).toBe(`${app.url}/user/${username}`)
    expect(text(user.email)).toBe(`${username}@example.org`)
  }
}

const slugsOf = (doc: XmlObject): string[] => list<XmlObject>(doc.groups.group).map((g) => text(g.slug))

describe('groups API', () => {
  let app: TestApp
  let other: string

  beforeAll(async () => {
    app = await startApp()
    other = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201).platform
        .slug,
    )
    for (const username of ['ann', 'bob', 'cid']) await app.createUser({ username })
    await app.createUser({ username: 'outsider', platform: other })
  })
  afterAll(async () => app?.close())

  it('GET /platform/<slug>/groups answers an empty list first', async () => {
    const res = await app.client.get('/platform/default/groups')
    const doc = xmlOf(res, 200)
    expect(doc.groups).toEqual({ '@href': `${app.url}/platform/default/groups` })
    expect(res.headers['content-range']).toBe('entities */0')
    expect(res.headers['accept-ranges']).toBe('entities')
  })

  it('POST /platform/<slug>/groups answers 201 with the group info', async () => {
    const res = await app.client.post('/platform/default/groups', { form: { name: 'Night Shift' } })
    expectGroupInfo(app, xmlOf(res, 201).group, 'night-shift', 'Night Shift')
    expect(res.body).toContain('<name><![CDATA[Night Shift]]></name>')
    expectGroupInfo(app, xmlOf(await app.client.get('/group/night-shift'), 200).group, 'night-shift', 'Night Shift')
  })

  it('lists groups in creation order with href, slug and name only, and pages with Range', async () => {
    await createGroup(app.client, 'Alpha')
    await createGroup(app.client, 'Beta')
    const doc = xmlOf(await app.client.get('/platform/default/groups'), 200)
    expect(slugsOf(doc)).toEqual(['night-shift', 'alpha', 'beta'])
    for (const entry of list<XmlObject>(doc.groups.group)) {
      expect(keysOf(entry)).toEqual(['@href', 'name', 'slug'])
      expect(entry['@href']).toBe(`${app.url}/group/${text(entry.slug)}`)
    }
    expect(text(list<XmlObject>(doc.groups.group)[1]!.name)).toBe('Alpha')
    const page = await app.client.get('/platform/default/groups', { headers: { range: 'entities=1-1' } })
    expect(slugsOf(xmlOf(page, 200))).toEqual(['alpha'])
    expect(page.headers['content-range']).toBe('entities 1-1/3')
    expect((await app.client.get('/platform/default/groups', { headers: { range: 'entities=7-9' } })).status).toBe(200)
    // Groups of another platform are not listed here.
    await createGroup(app.client, 'Elsewhere', other)
    expect(slugsOf(xmlOf(await app.client.get('/platform/default/groups'), 200))).toEqual([
      'night-shift',
      'alpha',
      'beta',
    ])
    expect(slugsOf(xmlOf(await app.client.get(`/platform/${other}/groups`), 200))).toEqual(['elsewhere'])
  })

  it('slugs come from the name, get -2 on clash, and never change on rename', async () => {
    expect(await createGroup(app.client, 'Crème Team')).toBe('creme-team')
    expect(await createGroup(app.client, 'Crème Team')).toBe('creme-team-2')
    const answers = await Promise.all(
      [1, 2, 3].map(() => app.client.post('/platform/default/groups', { form: { name: 'Race' } })),
    )
    expect(answers.map((res) => text(xmlOf(res, 201).group.slug)).sort()).toEqual(['race', 'race-2', 'race-3'])
    const put = await app.client.put('/group/creme-team', { form: { name: 'Renamed', slug: 'nope' } })
    expectGroupInfo(app, xmlOf(put, 200).group, 'creme-team', 'Renamed')
    expectGroupInfo(app, xmlOf(await app.client.get('/group/creme-team'), 200).group, 'creme-team', 'Renamed')
    expectError(await app.client.get('/group/renamed'), 404, 'No group "renamed".')
  })

  it('validates the name on create (412)', async () => {
    const post = (form: Record<string, string>) => app.client.post('/platform/default/groups', { form })
    expectError(await post({}), 412, INVALID, { name: 'is required' })
    expectError(await post({ name: '   ' }), 412, INVALID, { name: 'is required' })
    expectError(await post({ name: 'x'.repeat(256) }), 412, INVALID, { name: 'must be at most 255 characters' })
    const longest = xmlOf(await post({ name: 'é'.repeat(255) }), 201).group
    expect(text(longest.name)).toBe('é'.repeat(255))
    expect(text(longest.slug)).toBe('e'.repeat(64))
  })

  it('PUT /group/<slug> is a partial update: name optional, never empty or too long', async () => {
    const slug = await createGroup(app.client, 'Editable')
    expectGroupInfo(app, xmlOf(await app.client.put(`/group/${slug}`), 200).group, slug, 'Editable')
    expectError(await app.client.put(`/group/${slug}`, { form: { name: '' } }), 412, INVALID, {
      name: 'cannot be empty',
    })
    expectError(await app.client.put(`/group/${slug}`, { form: { name: 'y'.repeat(256) } }), 412, INVALID, {
      name: 'must be at most 255 characters',
    })
    expect(text(xmlOf(await app.client.get(`/group/${slug}`), 200).group.name)).toBe('Editable')
  })

  it('unknown groups answer 404 on every group endpoint', async () => {
    const msg = 'No group "ghost".'
    expectError(await app.client.get('/group/ghost'), 404, msg)
    expectError(await app.client.put('/group/ghost', { form: { name: 'x' } }), 404, msg)
    expectError(await app.client.delete('/group/ghost'), 404, msg)
    expectError(await app.client.get('/group/ghost/users'), 404, msg)
    expectError(await app.client.post('/group/ghost/users', { form: { username: 'ann' } }), 404, msg)
    expectError(await app.client.delete('/group/ghost/user/ann'), 404, msg)
    expectError(await app.client.get('/platform/nowhere/groups'), 404, 'No platform "nowhere".')
    expectError(
      await app.client.post('/platform/nowhere/groups', { form: { name: 'x' } }),
      404,
      'No platform "nowhere".',
    )
  })

  describe('members', () => {
    let group: string
    beforeAll(async () => {
      group = await createGroup(app.client, 'Crew')
    })

    it('GET /group/<slug>/users of a new group is an empty users list', async () => {
      const res = await app.client.get(`/group/${group}/users`)
      expectMembers(app, xmlOf(res, 200), group, [])
      expect(res.headers['content-range']).toBe('entities */0')
    })

    it('POST /group/<slug>/users adds a user and answers 201 with every member, in joining order', async () => {
      expectMembers(
        app,
        xmlOf(await app.client.post(`/group/${group}/users`, { form: { username: 'bob' } }), 201),
        group,
        ['bob'],
      )
      expectMembers(
        app,
        xmlOf(await app.client.post(`/group/${group}/users`, { form: { username: 'ann' } }), 201),
        group,
        ['bob', 'ann'],
      )
      expectMembers(app, xmlOf(await app.client.get(`/group/${group}/users`), 200), group, ['bob', 'ann'])
      const page = await app.client.get(`/group/${group}/users`, { headers: { range: 'entities=1-' } })
      expectMembers(app, xmlOf(page, 200), group, ['ann'])
      expect(page.headers['content-range']).toBe('entities 1-1/2')
    })

    it('adding a member again is idempotent: 201, no duplicate', async () => {
      expectMembers(
        app,
        xmlOf(await app.client.post(`/group/${group}/users`, { form: { username: 'bob' } }), 201),
        group,
        ['bob', 'ann'],
      )
      const both = await Promise.all(
        [1, 2].map(() => app.client.post(`/group/${group}/users`, { form: { username: 'cid' } })),
      )
      for (const res of both) expectMembers(app, xmlOf(res, 201), group, ['bob', 'ann', 'cid'])
      const em = app.kernel.em()
      expect(await em.count(GroupMemberEntity, { group: { slug: group } })).toBe(3)
    })

    it('refuses a missing, unknown or foreign username (412)', async () => {
      const post = (form: Record<string, string>) => app.client.post(`/group/${group}/users`, { form })
      expectError(await post({}), 412, INVALID, { username: 'is required' })
      expectError(await post({ username: '' }), 412, INVALID, { username: 'is required' })
      const foreign = "no user of this name on the group's platform"
      expectError(await post({ username: 'nobody-here' }), 412, INVALID, { username: foreign })
      // A user of another platform cannot join, and answers like an unknown one.
      expectError(await post({ username: 'outsider' }), 412, INVALID, { username: foreign })
      expectMembers(app, xmlOf(await app.client.get(`/group/${group}/users`), 200), group, ['bob', 'ann', 'cid'])
    })

    it('DELETE /group/<slug>/user/<username> answers 200 with the remaining members', async () => {
      expectMembers(app, xmlOf(await app.client.delete(`/group/${group}/user/ann`), 200), group, ['bob', 'cid'])
      expectMembers(app, xmlOf(await app.client.get(`/group/${group}/users`), 200), group, ['bob', 'cid'])
      // The user still exists.
      expect(await app.kernel.em().count(UserEntity, { username: 'ann' })).toBe(1)
    })

    it('removing a non-member, an unknown user or a user of another platform answers 404', async () => {
      expectError(
        await app.client.delete(`/group/${group}/user/ann`),
        404,
        `"ann" is not a member of group "${group}".`,
      )
      expectError(
        await app.client.delete(`/group/${group}/user/nobody`),
        404,
        `"nobody" is not a member of group "${group}".`,
      )
      expectError(
        await app.client.delete(`/group/${group}/user/outsider`),
        404,
        `"outsider" is not a member of group "${group}".`,
      )
      expectMembers(app, xmlOf(await app.client.get(`/group/${group}/users`), 200), group, ['bob', 'cid'])
    })
  })

  it('DELETE /group/<slug> answers 204 and removes memberships and accesses, not users', async () => {
    const slug = await createGroup(app.client, 'Doomed')
    await app.client.post(`/group/${slug}/users`, { form: { username: 'ann' } })
    const em = app.kernel.em()
    const res = await app.client.delete(`/group/${slug}`)
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expectError(await app.client.get(`/group/${slug}`), 404, `No group "${slug}".`)
    expect(await em.count(GroupEntity, { slug })).toBe(0)
    expect(await em.count(GroupMemberEntity, { user: { username: 'ann' }, group: { slug } })).toBe(0)
    expect(await em.count(UserEntity, { username: 'ann' })).toBe(1)
    expect(slugsOf(xmlOf(await app.client.get('/platform/default/groups'), 200))).not.toContain(slug)
  })

  it('answers 401 without credentials', async () => {
    for (const [method, path] of [
      ['GET', '/platform/default/groups'],
      ['POST', '/platform/default/groups'],
      ['GET', '/group/alpha'],
      ['PUT', '/group/alpha'],
      ['DELETE', '/group/alpha'],
      ['GET', '/group/alpha/users'],
      ['POST', '/group/alpha/users'],
      ['DELETE', '/group/alpha/user/ann'],
    ] as const) {
      const res = await rawRequest(`${app.url}${path}`, method)
      expect(res.status).toBe(401)
      expect(text(parseXml(res.body).error.status)).toBe('401')
    }
    expect(text(xmlOf(await app.client.get('/group/alpha'), 200).group.name)).toBe('Alpha')
  })
})

describe('group authorization', () => {
  let app: TestApp
  let other: string
  let group: string

  beforeAll(async () => {
    app = await startApp()
    other = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201).platform
        .slug,
    )
    group = await createGroup(app.client, 'Guarded')
    await app.createUser({ username: 'member' })
    await app.client.post(`/group/${group}/users`, { form: { username: 'member' } })
  })
  afterAll(async () => app?.close())

  it('group.view alone reads groups and members; every change is 403', async () => {
    const viewer = await userWithFlags(app, 'viewer', ['platform.view', 'group.view', 'user.view'])
    expect(slugsOf(xmlOf(await viewer.get('/platform/default/groups'), 200))).toEqual([group])
    expectGroupInfo(app, xmlOf(await viewer.get(`/group/${group}`), 200).group, group, 'Guarded')
    expectMembers(app, xmlOf(await viewer.get(`/group/${group}/users`), 200), group, ['member'])
    expectError(await viewer.post('/platform/default/groups', { form: { name: 'Mine' } }), 403, NEEDS('group.create'))
    expectError(await viewer.put(`/group/${group}`, { form: { name: 'Mine' } }), 403, NEEDS('group.edit'))
    expectError(await viewer.delete(`/group/${group}`), 403, NEEDS('group.delete'))
    expectError(await viewer.post(`/group/${group}/users`, { form: { username: 'viewer' } }), 403, NEEDS('group.edit'))
    expectError(await viewer.delete(`/group/${group}/user/member`), 403, NEEDS('group.edit'))
    expectMembers(app, xmlOf(await app.client.get(`/group/${group}/users`), 200), group, ['member'])
    expect(text(xmlOf(await app.client.get(`/group/${group}`), 200).group.name)).toBe('Guarded')
  })

  it('without group.view groups are invisible (404) and the list is 403', async () => {
    const blind = await userWithFlags(app, 'blind', ['platform.view', 'group.edit', 'group.delete'])
    const msg = `No group "${group}".`
    expectError(await blind.get('/platform/default/groups'), 403, NEEDS('group.view'))
    expectError(await blind.get(`/group/${group}`), 404, msg)
    expectError(await blind.put(`/group/${group}`, { form: { name: 'X' } }), 404, msg)
    expectError(await blind.delete(`/group/${group}`), 404, msg)
    expectError(await blind.get(`/group/${group}/users`), 404, msg)
    expectError(await blind.post(`/group/${group}/users`, { form: { username: 'blind' } }), 404, msg)
    expectError(await blind.delete(`/group/${group}/user/member`), 404, msg)
  })

  it('without platform.view (profile or access) the platform itself is invisible (404)', async () => {
    const nobody = await userWithFlags(app, 'nobody', ['group.view', 'group.create'])
    expectError(await nobody.get('/platform/default/groups'), 404, 'No platform "default".')
    expectError(await nobody.post('/platform/default/groups', { form: { name: 'X' } }), 404, 'No platform "default".')
    expectError(await nobody.get(`/group/${group}`), 404, `No group "${group}".`)
    // platform.view through a role on the platform is enough to see it.
    await grantOnPlatform(app, 'nobody', 'default-viewer')
    expect(slugsOf(xmlOf(await nobody.get('/platform/default/groups'), 200))).toEqual([group])
  })

  it('members are users: without user.view the member endpoints answer 403 and change nothing', async () => {
    const reader = await userWithFlags(app, 'groupie', ['platform.view', 'group.view', 'group.edit'])
    const why = 'This needs the "user.view" permission of your profile: the members are users.'
    expectError(await reader.get(`/group/${group}/users`), 403, why)
    expectError(await reader.post(`/group/${group}/users`, { form: { username: 'groupie' } }), 403, why)
    expectError(await reader.delete(`/group/${group}/user/member`), 403, why)
    expectMembers(app, xmlOf(await app.client.get(`/group/${group}/users`), 200), group, ['member'])
  })

  it('group.create, group.edit and group.delete each allow their action', async () => {
    const manager = await userWithFlags(app, 'manager', [
      'platform.view',
      'user.view',
      'group.view',
      'group.create',
      'group.edit',
      'group.delete',
    ])
    const slug = text(
      xmlOf(await manager.post('/platform/default/groups', { form: { name: 'Managed' } }), 201).group.slug,
    )
    expect(text(xmlOf(await manager.put(`/group/${slug}`, { form: { name: 'Managed 2' } }), 200).group.name)).toBe(
      'Managed 2',
    )
    expectMembers(app, xmlOf(await manager.post(`/group/${slug}/users`, { form: { username: 'member' } }), 201), slug, [
      'member',
    ])
    expectMembers(app, xmlOf(await manager.delete(`/group/${slug}/user/member`), 200), slug, [])
    expect((await manager.delete(`/group/${slug}`)).status).toBe(204)
  })

  it('groups of another platform are invisible (404), even to its administrators', async () => {
    const stranger = await app.createUser({ username: 'stranger', platform: other })
    const msg = `No group "${group}".`
    expectError(await stranger.get('/platform/default/groups'), 404, 'No platform "default".')
    expectError(await stranger.post('/platform/default/groups', { form: { name: 'X' } }), 404, 'No platform "default".')
    expectError(await stranger.get(`/group/${group}`), 404, msg)
    expectError(await stranger.put(`/group/${group}`, { form: { name: 'X' } }), 404, msg)
    expectError(await stranger.delete(`/group/${group}`), 404, msg)
    expectError(await stranger.get(`/group/${group}/users`), 404, msg)
    expectError(await stranger.post(`/group/${group}/users`, { form: { username: 'stranger' } }), 404, msg)
    expectError(await stranger.delete(`/group/${group}/user/member`), 404, msg)
    // Their own platform works for them.
    const own = text(
      xmlOf(await stranger.post(`/platform/${other}/groups`, { form: { name: 'Theirs' } }), 201).group.slug,
    )
    expectGroupInfo(app, xmlOf(await stranger.get(`/group/${own}`), 200).group, own, 'Theirs', other)
    // And the default platform's user cannot join it.
    expectError(await stranger.post(`/group/${own}/users`, { form: { username: 'member' } }), 412, INVALID, {
      username: "no user of this name on the group's platform",
    })
    expectMembers(app, xmlOf(await app.client.get(`/group/${group}/users`), 200), group, ['member'])
  })
})
