import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AccessEntity,
  GroupEntity,
  GroupMemberEntity,
  RoleEntity,
  UserEntity,
  rotateApiKey,
} from '../../../plugins/identity/index.js'
import { PlatformEntity } from '../../../plugins/platforms/index.js'
import { definePlugin } from '../../../src/kernel/index.js'
import { verifyPassword } from '../../../src/shared/password.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import {
  DECLARATION,
  type ExpectedUser,
  INVALID,
  NEEDS,
  NO_PLATFORM,
  NO_USER,
  expectError,
  expectSummary,
  expectUserInfo,
  makeProfile,
  storedUser,
  userWithProfile,
  usernamesOf,
  xmlOf,
} from './users.helpers.js'

/** Every field of a create request. */
const FULL = {
  username: 'jdoe',
  password: ' s3cret pass ',
  email: 'jane.doe@example.org',
  profile: 'default-publisher',
  first_name: 'Jane',
  last_name: 'Doe',
  telephone: '+33 1 23 45 67 89',
  address: '1 rue de la Paix',
  city: 'Paris',
  zipcode: '75002',
  country: 'FR',
  language: 'fr',
  is_active: '1',
}

const JDOE: ExpectedUser = {
  username: 'jdoe',
  email: 'jane.doe@example.org',
  profile: 'default-publisher',
  firstName: 'Jane',
  lastName: 'Doe',
  telephone: '+33 1 23 45 67 89',
  address: '1 rue de la Paix',
  city: 'Paris',
  zipcode: '75002',
  country: 'France',
  language: 'French',
}

/** The smallest valid create request. */
const minimal = (username: string, extra: Record<string, string> = {}): Record<string, string> => ({
  username,
  password: 'pw',
  email: `${username}@example.org`,
  profile: 'default-viewer',
  ...extra,
})

const deleted: string[] = []
/** A later plugin (the file store) removes what a user owns on `user.deleting`. */
const listener = definePlugin({
  name: 'test-user-deleting',
  dependsOn: ['identity'],
  register(ctx) {
    ctx.on('user.deleting', async ({ em, user }) => {
      // Inside the deleting transaction: the row is still there.
      expect(await em.count(UserEntity, { id: user.id })).toBe(1)
      deleted.push(user.username)
    })
  },
})

describe('users API (installation administrator)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp({ plugins: [listener] })
  })
  afterAll(async () => app?.close())

  it('POST /platform/<slug>/users creates a user with every field (201)', async () => {
    const res = await app.client.post('/platform/default/users', { form: FULL })
    expectUserInfo(app, res, 201, JDOE)
    expect(res.body).not.toContain('s3cret')
    const stored = await storedUser(app, 'jdoe')
    expect(stored!.country).toBe('FR')
    expect(stored!.language).toBe('fr')
    expect(stored!.isActive).toBe(true)
    // Hashed with scrypt, and taken exactly as sent (spaces belong to passwords).
    expect(stored!.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/)
    expect(await verifyPassword(' s3cret pass ', stored!.passwordHash)).toBe(true)
    expect(await verifyPassword('s3cret pass', stored!.passwordHash)).toBe(false)
  })

  it('the smallest create: optional fields empty, is_active 1; multipart works too', async () => {
    expectUserInfo(app, await app.client.post('/platform/default/users', { form: minimal('min') }), 201, {
      username: 'min',
      email: 'min@example.org',
      profile: 'default-viewer',
    })
    const boundary = 'users-test-boundary'
    const body =
      Object.entries(minimal('multi', { is_active: '0', city: 'Lyon' }))
        .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
        .join('') + `--${boundary}--\r\n`
    const res = await app.client.post('/platform/default/users', {
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    })
    expectUserInfo(app, res, 201, {
      username: 'multi',
      email: 'multi@example.org',
      profile: 'default-viewer',
      city: 'Lyon',
      isActive: false,
    })
  })

  it('GET /user/<username> answers the same info (200)', async () => {
    expectUserInfo(app, await app.client.get('/user/jdoe'), 200, JDOE)
    expectError(await app.client.get('/user/nobody'), 404, NO_USER('nobody'))
    // Usernames are exact in addresses.
    expectError(await app.client.get('/user/JDOE'), 404, NO_USER('JDOE'))
  })

  it('GET /platform/<slug>/users lists users oldest first, with the list fields only', async () => {
    const res = await app.client.get('/platform/default/users')
    const doc = xmlOf(res, 200)
    expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['users'])
    expect(doc.users['@href']).toBe(`${app.url}/platform/default/users`)
    const entries = list<XmlObject>(doc.users.user)
    expect(entries.map((u) => text(u.username))).toEqual(['admin', 'jdoe', 'min', 'multi'])
    expectSummary(app, entries[0]!, { username: 'admin', email: 'admin@example.org', profile: '' })
    expectSummary(app, entries[1]!, JDOE)
    expectSummary(app, entries[3]!, { username: 'multi', email: 'multi@example.org', profile: '', isActive: false })
    expect(res.headers['content-range']).toBe('entities 0-3/4')
    expect(res.headers['accept-ranges']).toBe('entities')
  })

  it('the list pages with Range (an empty page past the end)', async () => {
    const page = await app.client.get('/platform/default/users', { headers: { range: 'entities=1-2' } })
    expect(list<XmlObject>(xmlOf(page, 200).users.user).map((u) => text(u.username))).toEqual(['jdoe', 'min'])
    expect(page.headers['content-range']).toBe('entities 1-2/4')
    const tail = await app.client.get('/platform/default/users', { headers: { range: 'entities=3-' } })
    expect(list<XmlObject>(xmlOf(tail, 200).users.user).map((u) => text(u.username))).toEqual(['multi'])
    expect(tail.headers['content-range']).toBe('entities 3-3/4')
    const past = await app.client.get('/platform/default/users', { headers: { range: 'entities=4-' } })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe('entities */4')
  })

  it('an empty platform lists no users; an unknown one answers 404', async () => {
    expect((await app.client.post('/platforms', { form: { name: 'Empty', max_users: 0, max_space: 0 } })).status).toBe(
      201,
    )
    const res = await app.client.get('/platform/empty/users')
    expect(res.body).toBe(`${DECLARATION}<users href="${app.url}/platform/empty/users"/>`)
    expect(res.headers['content-range']).toBe('entities */0')
    expectError(await app.client.get('/platform/nope/users'), 404, NO_PLATFORM('nope'))
    expectError(await app.client.post('/platform/nope/users', { form: minimal('x') }), 404, NO_PLATFORM('nope'))
  })

  it('PUT changes only the fields sent; empty clears an optional one (200)', async () => {
    expectUserInfo(app, await app.client.put('/user/jdoe', { form: { city: 'Marseille', language: 'it' } }), 200, {
      ...JDOE,
      city: 'Marseille',
      language: 'Italian',
    })
    const cleared = await app.client.put('/user/jdoe', {
      form: { first_name: '', telephone: '', address: '', zipcode: '', country: '', language: '', city: '' },
    })
    expectUserInfo(app, cleared, 200, { username: 'jdoe', email: JDOE.email, profile: JDOE.profile, lastName: 'Doe' })
    const stored = await storedUser(app, 'jdoe')
    expect([stored!.firstName, stored!.telephone, stored!.country, stored!.language]).toEqual([null, null, null, null])
    expectUserInfo(app, await app.client.put('/user/jdoe', { form: FULL }), 200, JDOE)
    // A PUT without fields changes nothing.
    expectUserInfo(app, await app.client.put('/user/jdoe'), 200, JDOE)
  })

  it('PUT changes the profile, is_active, e-mail and password', async () => {
    const res = await app.client.put('/user/min', {
      form: { profile: 'default-administrator', is_active: '0', email: 'MIN2@example.org', password: 'new pw' },
    })
    expectUserInfo(app, res, 200, {
      username: 'min',
      email: 'MIN2@example.org',
      profile: 'default-administrator',
      isActive: false,
    })
    const stored = await storedUser(app, 'min')
    expect(await verifyPassword('new pw', stored!.passwordHash)).toBe(true)
    expectUserInfo(app, await app.client.put('/user/min', { form: { is_active: 'true' } }), 200, {
      username: 'min',
      email: 'MIN2@example.org',
      profile: 'default-administrator',
    })
  })

  it('PUT sending a required field empty answers 412 and changes nothing', async () => {
    expectError(
      await app.client.put('/user/jdoe', {
        form: { username: '', email: ' ', password: '', profile: '', is_active: '', city: 'Nice' },
      }),
      412,
      INVALID,
      {
        username: 'cannot be empty',
        password: 'cannot be empty',
        email: 'cannot be empty',
        is_active: 'must be 0 or 1',
        profile: 'cannot be empty',
      },
    )
    expectUserInfo(app, await app.client.get('/user/jdoe'), 200, JDOE)
  })

  it('renaming keeps everything else; the answer has the new address; the API key needs renewing', async () => {
    const renamed = await userWithProfile(app, 'old-name', 'default-viewer')
    expect((await renamed.get('/user/old-name')).status).toBe(200)
    const res = await app.client.put('/user/old-name', { form: { username: 'new-name' } })
    expectUserInfo(app, res, 200, { username: 'new-name', email: 'old-name@example.org', profile: 'default-viewer' })
    expectError(await app.client.get('/user/old-name'), 404, NO_USER('old-name'))
    expect((await app.client.get('/user/new-name')).status).toBe(200)
    // The HA1 was made with the old name: neither name authenticates with the old key.
    expect((await renamed.get('/')).status).toBe(401)
    expect((await app.clientFor('new-name', renamed.apiKey).get('/')).status).toBe(401)
    const em = app.kernel.em()
    const user = await em.findOneOrFail(UserEntity, { username: 'new-name' })
    const key = await rotateApiKey(em, user, app.kernel.config.auth.realm)
    expect((await app.clientFor('new-name', key).get('/user/new-name')).status).toBe(200)
    // Changing only the case of one's own username is allowed.
    expect((await app.client.put('/user/new-name', { form: { username: 'New-Name' } })).status).toBe(200)
  })

  it('DELETE removes the user, their accesses and memberships, and tells other plugins (204)', async () => {
    await userWithProfile(app, 'doomed', 'default-viewer')
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'default' })
    const user = await em.findOneOrFail(UserEntity, { username: 'doomed' })
    const group = em.create(GroupEntity, { slug: 'doomed-group', name: 'Doomed', platform, createdAt: new Date() })
    em.create(GroupMemberEntity, { group, user, createdAt: new Date() })
    const role = await em.findOneOrFail(RoleEntity, { platform, name: 'Viewer' })
    em.create(AccessEntity, {
      publicId: 'doomedaccess1',
      user,
      group: null,
      objectKind: 'platform',
      objectId: platform.id,
      role,
      platform,
      createdAt: new Date(),
    })
    await em.flush()
    const id = user.id

    const res = await app.client.delete('/user/doomed')
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expect(deleted).toEqual(['doomed'])
    expectError(await app.client.get('/user/doomed'), 404, NO_USER('doomed'))
    expectError(await app.client.delete('/user/doomed'), 404, NO_USER('doomed'))
    const check = app.kernel.em()
    expect(await check.count(UserEntity, { id })).toBe(0)
    expect(await check.count(GroupMemberEntity, { user: id })).toBe(0)
    expect(await check.count(AccessEntity, { user: id })).toBe(0)
    // The group itself stays.
    expect(await check.count(GroupEntity, { slug: 'doomed-group' })).toBe(1)
    expect(await usernamesOf(app.client)).not.toContain('doomed')
    // The username is free again.
    expect((await app.client.post('/platform/default/users', { form: minimal('doomed') })).status).toBe(201)
  })

  it('nobody deletes themselves; the last active installation administrator stays one (412)', async () => {
    expectError(await app.client.delete('/user/admin'), 412, 'You cannot delete yourself.', {
      username: 'is yours: nobody may delete themselves',
    })
    const lastAdmin =
      'This would leave the installation without an active installation administrator: make another one first (mediactl user create --admin).'
    const field = 'the user is the last active installation administrator'
    expectError(await app.client.put('/user/admin', { form: { is_active: '0' } }), 412, lastAdmin, {
      is_active: field,
    })
    expectError(await app.client.put('/user/admin', { form: { profile: 'default-administrator' } }), 412, lastAdmin, {
      profile: field,
    })
    // With a second one, either may go; an inactive one does not count.
    const second = await app.createUser({ username: 'admin2', admin: true })
    expect((await second.get('/platforms')).status).toBe(200)
    expect((await app.client.put('/user/admin2', { form: { is_active: '0' } })).status).toBe(200)
    expectError(await app.client.put('/user/admin', { form: { is_active: '0' } }), 412, lastAdmin, {
      is_active: field,
    })
    expect((await app.client.delete('/user/admin2')).status).toBe(204)
    expect((await app.client.get('/platforms')).status).toBe(200)
  })
})

describe('user field rules (412)', () => {
  let app: TestApp
  let count: () => Promise<number>
  beforeAll(async () => {
    app = await startApp()
    count = () => app.kernel.em().count(UserEntity, {})
  })
  afterAll(async () => app?.close())

  const post = (form: Record<string, string>) => app.client.post('/platform/default/users', { form })

  it('the required fields, all listed at once; nothing stored', async () => {
    const before = await count()
    expectError(await post({}), 412, INVALID, {
      username: 'is required',
      password: 'is required',
      email: 'is required',
      profile: 'is required',
    })
    expectError(await post({ username: ' ', password: '  ', email: '', profile: '' }), 412, INVALID, {
      username: 'is required',
      password: 'is required',
      email: 'is required',
      profile: 'is required',
    })
    expect(await count()).toBe(before)
  })

  it('every length limit, at the limit and one past it', async () => {
    const ok = await post(
      minimal('u'.repeat(128), {
        password: 'p'.repeat(128),
        first_name: 'f'.repeat(255),
        last_name: 'l'.repeat(255),
        telephone: '1'.repeat(20),
        address: 'a'.repeat(255),
        city: 'c'.repeat(100),
        zipcode: 'AB-12',
        email: `${'e'.repeat(243)}@example.org`,
      }),
    )
    expect(ok.status, ok.body).toBe(201)
    const before = await count()
    expectError(
      await post(
        minimal('u'.repeat(129), {
          password: 'p'.repeat(129),
          first_name: 'f'.repeat(256),
          last_name: 'l'.repeat(256),
          telephone: '1'.repeat(21),
          address: 'a'.repeat(256),
          city: 'c'.repeat(101),
          zipcode: '1234',
          email: `${'e'.repeat(244)}@example.org`,
        }),
      ),
      412,
      INVALID,
      {
        username: 'must be at most 128 characters',
        password: 'must be at most 128 characters',
        email: 'must be at most 255 characters',
        first_name: 'must be at most 255 characters',
        last_name: 'must be at most 255 characters',
        telephone: 'must be at most 20 characters',
        address: 'must be at most 255 characters',
        city: 'must be at most 100 characters',
        zipcode: 'must be exactly 5 characters',
      },
    )
    expectError(await post(minimal('zip6', { zipcode: '123456' })), 412, INVALID, {
      zipcode: 'must be exactly 5 characters',
    })
    // Lengths count characters, not bytes.
    expect((await post(minimal('accents', { first_name: 'é'.repeat(255), zipcode: 'ÉÉÉÉÉ' }))).status).toBe(201)
    expect(await count()).toBe(before + 1)
  })

  it('username characters: letters, digits, . _ - @, starting with a letter or a digit', async () => {
    for (const [i, username] of ['a.b_c-d@e', 'X9', '0day'].entries()) {
      expect((await post(minimal(username, { email: `chars${i}@example.org` }))).status).toBe(201)
    }
    const message = 'may hold only letters, digits and . _ - @, and must start with a letter or a digit'
    for (const username of ['has space', 'émile', '.hidden', '..', '-dash', 'a/b', 'a"b', 'a:b', 'a%b']) {
      expectError(await post(minimal(username, { email: 'x@example.org' })), 412, INVALID, { username: message })
    }
  })

  it('control characters are refused in every text field', async () => {
    expectError(
      await post(
        minimal('ctl\u0001', {
          email: 'ctl@example.org',
          // Not a NUL: a NUL is refused by the kernel before the field rules (test/hostile/limits.test.ts).
          first_name: 'a\u0002b',
          city: 'c\u001f',
          address: 'x\u0007y',
        }),
      ),
      412,
      INVALID,
      {
        username: 'must not contain control characters',
        first_name: 'must not contain control characters',
        address: 'must not contain control characters',
        city: 'must not contain control characters',
      },
    )
  })

  it('country: ISO 3166-1 alpha-2 in uppercase; language: ISO 639-1 in lowercase', async () => {
    const country = 'must be an ISO 3166-1 alpha-2 code in uppercase, for example FR'
    const language = 'must be an ISO 639-1 code in lowercase, for example fr'
    for (const code of ['fr', 'FRA', 'Fr', 'XX', '250', 'France']) {
      expectError(await post(minimal('geo', { country: code })), 412, INVALID, { country })
    }
    for (const code of ['FR', 'fra', 'Fr', 'xx', 'french']) {
      expectError(await post(minimal('geo', { language: code })), 412, INVALID, { language })
    }
    const res = await post(minimal('geo', { country: 'DE', language: 'de' }))
    expectUserInfo(app, res, 201, {
      username: 'geo',
      email: 'geo@example.org',
      profile: 'default-viewer',
      country: 'Germany',
      language: 'German',
    })
    expectError(await app.client.put('/user/geo', { form: { country: 'de', language: 'DE' } }), 412, INVALID, {
      country,
      language,
    })
  })

  it('e-mail: valid, unique on its platform without regard to case; is_active 0 or 1', async () => {
    expectError(await post(minimal('mail', { email: 'not-an-address' })), 412, INVALID, {
      email: 'must be a valid e-mail address',
    })
    expectError(await post(minimal('mail', { is_active: 'yes' })), 412, INVALID, { is_active: 'must be 0 or 1' })
    expect((await post(minimal('mail'))).status).toBe(201)
    expectError(await post(minimal('mail2', { email: 'MAIL@example.org' })), 412, INVALID, {
      email: 'is already used on this platform',
    })
    // Another platform may use it.
    expect((await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } })).status).toBe(
      201,
    )
    const other = await app.client.post('/platform/other/users', {
      form: minimal('mail-other', { email: 'mail@example.org', profile: 'other-viewer' }),
    })
    expectUserInfo(app, other, 201, {
      username: 'mail-other',
      email: 'mail@example.org',
      profile: 'other-viewer',
      platform: 'other',
    })
    // On update too, except for the user's own address.
    expectError(await app.client.put('/user/geo', { form: { email: 'mail@example.org' } }), 412, INVALID, {
      email: 'is already used on this platform',
    })
    expect((await app.client.put('/user/mail', { form: { email: 'Mail@Example.org' } })).status).toBe(200)
  })

  it('usernames are unique across the installation, without regard to case', async () => {
    for (const username of ['mail', 'MAIL', 'Admin']) {
      expectError(await post(minimal(username, { email: 'fresh@example.org' })), 412, INVALID, {
        username: 'is already used',
      })
    }
    const onOther = await app.client.post('/platform/other/users', {
      form: minimal('admin', { profile: 'other-viewer' }),
    })
    expectError(onOther, 412, INVALID, { username: 'is already used' })
    expectError(await app.client.put('/user/geo', { form: { username: 'ADMIN' } }), 412, INVALID, {
      username: 'is already used',
    })
    // Both clashes at once.
    expectError(await post(minimal('admin', { email: 'admin@example.org' })), 412, INVALID, {
      username: 'is already used',
      email: 'is already used on this platform',
    })
  })

  it('profile: a profile of the same platform; platform: the one of the address', async () => {
    const noProfile = (slug: string): Record<string, string> => ({ profile: `no profile "${slug}" on this platform` })
    expectError(await post(minimal('prof', { profile: 'nope' })), 412, INVALID, noProfile('nope'))
    // Another platform's profile answers like an unknown one.
    expectError(await post(minimal('prof', { profile: 'other-viewer' })), 412, INVALID, noProfile('other-viewer'))
    expectError(await app.client.put('/user/geo', { form: { profile: 'other-viewer' } }), 412, INVALID, {
      profile: 'no profile "other-viewer" on this platform',
    })
    expectError(await post(minimal('prof', { platform: 'other' })), 412, INVALID, {
      platform: 'must be the platform of the address',
    })
    expect((await post(minimal('prof', { platform: 'default' }))).status).toBe(201)
    expectError(await app.client.put('/user/prof', { form: { platform: 'other' } }), 412, INVALID, {
      platform: 'cannot change: users stay on their platform',
    })
    expect((await app.client.put('/user/prof', { form: { platform: 'default' } })).status).toBe(200)
  })

  it('a list where one value is expected answers 412', async () => {
    const res = await app.client.post('/platform/default/users', {
      body: 'username[]=a&username[]=b&password=pw&email=l@example.org&profile=default-viewer',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expectError(res, 412, INVALID, { username: 'must be a single value' })
  })
})

describe('user authorization', () => {
  let app: TestApp
  /** Platform administrator: the default Administrator profile (every flag but instance.view). */
  let manager: DigestClient
  /** The Viewer profile: platform.view, user.view, group.view. */
  let viewer: DigestClient
  /** platform.view only: sees the platform, not its users. */
  let blind: DigestClient
  /** No flag at all. */
  let bare: DigestClient
  /** Can create users but hand out only what it holds. */
  let recruiter: DigestClient
  /** The administrator of another platform. */
  let stranger: DigestClient

  beforeAll(async () => {
    app = await startApp()
    expect((await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } })).status).toBe(
      201,
    )
    await makeProfile(app, 'default-blind', ['platform.view'])
    await makeProfile(app, 'default-bare', [])
    await makeProfile(app, 'default-recruiter', ['platform.view', 'user.view', 'user.create'])
    manager = await userWithProfile(app, 'manager', 'default-administrator')
    viewer = await userWithProfile(app, 'viewer', 'default-viewer')
    blind = await userWithProfile(app, 'blind', 'default-blind')
    bare = await userWithProfile(app, 'bare', 'default-bare')
    recruiter = await userWithProfile(app, 'recruiter', 'default-recruiter')
    stranger = await userWithProfile(app, 'stranger', 'other-administrator', { platform: 'other' })
    await userWithProfile(app, 'target', 'default-publisher')
  })
  afterAll(async () => app?.close())

  const TARGET: ExpectedUser = { username: 'target', email: 'target@example.org', profile: 'default-publisher' }

  it('user.view reads and lists users; without user.edit/delete/create: 403', async () => {
    expectUserInfo(app, await viewer.get('/user/target'), 200, TARGET)
    expect(await usernamesOf(viewer)).toEqual(['admin', 'manager', 'viewer', 'blind', 'bare', 'recruiter', 'target'])
    expectError(await viewer.put('/user/target', { form: { city: 'X' } }), 403, NEEDS('user.edit'))
    expectError(await viewer.delete('/user/target'), 403, NEEDS('user.delete'))
    expectError(await viewer.post('/platform/default/users', { form: minimal('new') }), 403, NEEDS('user.create'))
    expectUserInfo(app, await app.client.get('/user/target'), 200, TARGET)
  })

  it('without user.view, other users do not exist (404); the list is refused (403)', async () => {
    for (const client of [blind, bare]) {
      expectError(await client.get('/user/target'), 404, NO_USER('target'))
      expectError(await client.put('/user/target', { form: { city: 'X' } }), 404, NO_USER('target'))
      expectError(await client.delete('/user/target'), 404, NO_USER('target'))
      expectError(await client.get('/user/admin'), 404, NO_USER('admin'))
    }
    expectError(await blind.get('/platform/default/users'), 403, NEEDS('user.view'))
    // Without platform.view, the platform itself is invisible.
    expectError(await bare.get('/platform/default/users'), 404, NO_PLATFORM('default'))
    expectError(await bare.post('/platform/default/users', { form: minimal('new') }), 404, NO_PLATFORM('default'))
  })

  it('users read and change their own personal fields without any flag', async () => {
    for (const [client, username] of [
      [bare, 'bare'],
      [viewer, 'viewer'],
    ] as const) {
      expectUserInfo(app, await client.get(`/user/${username}`), 200, {
        username,
        email: `${username}@example.org`,
        profile: `default-${username}`,
      })
      const res = await client.put(`/user/${username}`, {
        form: {
          first_name: 'Me',
          last_name: 'Myself',
          email: `${username}.new@example.org`,
          telephone: '0102030405',
          address: 'Here',
          city: 'There',
          zipcode: '12345',
          country: 'BE',
          language: 'nl',
          password: 'mine',
        },
      })
      expectUserInfo(app, res, 200, {
        username,
        email: `${username}.new@example.org`,
        profile: `default-${username}`,
        firstName: 'Me',
        lastName: 'Myself',
        telephone: '0102030405',
        address: 'Here',
        city: 'There',
        zipcode: '12345',
        country: 'Belgium',
        language: 'Dutch',
      })
      expect(await verifyPassword('mine', (await storedUser(app, username))!.passwordHash)).toBe(true)
    }
  })

  it('username, profile and is_active of oneself need user.edit (403), even with valid values', async () => {
    const forms: Record<string, string>[] = [
      { username: 'bare2' },
      { profile: 'default-bare' },
      { is_active: '1' },
      { username: 'x y' },
    ]
    for (const form of forms) {
      expectError(await bare.put('/user/bare', { form }), 403, NEEDS('user.edit'))
    }
    expect((await storedUser(app, 'bare'))!.username).toBe('bare')
    // With user.edit (and the flags of the profile given), they may.
    const res = await manager.put('/user/manager', { form: { first_name: 'Boss', profile: 'default-publisher' } })
    expectUserInfo(app, res, 200, {
      username: 'manager',
      email: 'manager@example.org',
      profile: 'default-publisher',
      firstName: 'Boss',
    })
    // Putting it back needs flags the publisher profile lacks.
    expectError(
      await manager.put('/user/manager', { form: { profile: 'default-administrator' } }),
      403,
      NEEDS('user.edit'),
    )
    expect((await app.client.put('/user/manager', { form: { profile: 'default-administrator' } })).status).toBe(200)
  })

  it('another platform and its users do not exist for them (404)', async () => {
    expectError(await stranger.get('/user/target'), 404, NO_USER('target'))
    expectError(await stranger.put('/user/target', { form: { city: 'X' } }), 404, NO_USER('target'))
    expectError(await stranger.delete('/user/target'), 404, NO_USER('target'))
    expectError(await stranger.get('/platform/default/users'), 404, NO_PLATFORM('default'))
    expectError(await stranger.post('/platform/default/users', { form: minimal('new') }), 404, NO_PLATFORM('default'))
    expectError(await manager.get('/user/stranger'), 404, NO_USER('stranger'))
    expectError(await manager.get('/platform/other/users'), 404, NO_PLATFORM('other'))
    // Their own platform works, and the installation administrator sees both.
    expect(await usernamesOf(stranger, 'other')).toEqual(['stranger'])
    expect((await app.client.get('/user/stranger')).status).toBe(200)
  })

  it('an inactive user gets 401, whatever they ask', async () => {
    const sleeper = await userWithProfile(app, 'sleeper', 'default-administrator')
    expect((await sleeper.get('/user/sleeper')).status).toBe(200)
    expect((await manager.put('/user/sleeper', { form: { is_active: '0' } })).status).toBe(200)
    for (const res of [await sleeper.get('/user/sleeper'), await sleeper.get('/platform/default/users')]) {
      expectError(res, 401, 'This user is inactive.')
    }
  })

  it('a platform administrator manages users of their platform', async () => {
    const created = await manager.post('/platform/default/users', { form: minimal('hired') })
    expectUserInfo(app, created, 201, { username: 'hired', email: 'hired@example.org', profile: 'default-viewer' })
    expect((await manager.put('/user/hired', { form: { username: 'hired2', is_active: '0' } })).status).toBe(200)
    expect((await manager.delete('/user/hired2')).status).toBe(204)
    expectError(await manager.delete('/user/manager'), 412, 'You cannot delete yourself.', {
      username: 'is yours: nobody may delete themselves',
    })
  })

  it('no privilege escalation: a profile with flags the caller lacks cannot be given (403)', async () => {
    const grants = (profile: string, missing: string): string =>
      `The profile "${profile}" grants permissions you do not hold: ${missing}.`
    expectError(
      await manager.post('/platform/default/users', {
        form: minimal('root', { profile: 'default-installation-administrator' }),
      }),
      403,
      grants('default-installation-administrator', 'instance.view'),
    )
    expectError(
      await manager.put('/user/target', { form: { profile: 'default-installation-administrator' } }),
      403,
      grants('default-installation-administrator', 'instance.view'),
    )
    expectError(
      await recruiter.post('/platform/default/users', { form: minimal('peer') }),
      403,
      grants('default-viewer', 'group.view'),
    )
    expect(await usernamesOf(app.client)).not.toContain('peer')
    const peer = await recruiter.post('/platform/default/users', {
      form: minimal('peer', { profile: 'default-recruiter' }),
    })
    expectUserInfo(app, peer, 201, { username: 'peer', email: 'peer@example.org', profile: 'default-recruiter' })
    // The installation administrator may give anything.
    const root = await app.client.post('/platform/default/users', {
      form: minimal('root', { profile: 'default-installation-administrator' }),
    })
    expect(root.status).toBe(201)
  })

  it('no one acts on a user more powerful than themselves (403)', async () => {
    const holds = (username: string, missing: string): string =>
      `The profile of "${username}" grants permissions you do not hold: ${missing}.`
    expectError(await manager.put('/user/admin', { form: { city: 'X' } }), 403, holds('admin', 'instance.view'))
    expectError(await manager.put('/user/admin', { form: { is_active: '0' } }), 403, holds('admin', 'instance.view'))
    expectError(await manager.delete('/user/admin'), 403, holds('admin', 'instance.view'))
    expectError(await manager.delete('/user/root'), 403, holds('root', 'instance.view'))
    // Reading them is fine.
    expect((await manager.get('/user/admin')).status).toBe(200)
    expect((await app.client.get('/platforms')).status).toBe(200)
  })

  it('two installation administrators deleting each other at once: one remains', async () => {
    const em = app.kernel.em()
    const root = await em.findOneOrFail(UserEntity, { username: 'root' })
    const rootKey = await rotateApiKey(em, root, app.kernel.config.auth.realm)
    const rootClient = app.clientFor('root', rootKey)
    expect((await rootClient.get('/platforms')).status).toBe(200)
    expect((await app.client.get('/platforms')).status).toBe(200)
    const [a, b] = await Promise.all([app.client.delete('/user/root'), rootClient.delete('/user/admin')])
    const statuses = [a.status, b.status].sort()
    // One delete wins; the other is refused (412), or its caller is already gone (401).
    expect([
      [204, 412],
      [204, 401],
    ]).toContainEqual(statuses)
    const remaining = await app.kernel.em().count(UserEntity, { username: { $in: ['admin', 'root'] } })
    expect(remaining).toBe(1)
  })
})
