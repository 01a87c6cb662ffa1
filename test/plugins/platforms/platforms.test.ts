import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ProfileEntity, UserEntity, createUser } from '../../../plugins/identity/index.js'
import { PlatformEntity } from '../../../plugins/platforms/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { INVALID, NEEDS, expectError, xmlOf } from '../../helpers/answers.js'

const SLUG_SHAPE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

const notFoundMessage = (slug: string): string => `No platform "${slug}".`
/** The 403 of a role flag (from the profile's platform flags or an access). */
const NEEDS_ROLE = (flag: string): string => `This needs the "${flag}" permission.`

interface Expected {
  slug: string
  name: string
  maxUsers: number
  maxSpace: number
}

/** A `platform` element of a list: exactly href, slug, name, max_users, max_space. */
function expectSummary(app: TestApp, node: XmlObject, p: Expected): void {
  expect(Object.keys(node).sort()).toEqual(['@href', 'max_space', 'max_users', 'name', 'slug'])
  expect(node['@href']).toBe(`${app.url}/platform/${p.slug}`)
  expect(text(node.slug)).toBe(p.slug)
  expect(text(node.name)).toBe(p.name)
  expect(text(node.max_users)).toBe(String(p.maxUsers))
  expect(text(node.max_space)).toBe(String(p.maxSpace))
}

/** Platform info: the list fields plus created_users, used_space, timestamps and the metadata link, nothing else. */
function expectInfo(app: TestApp, doc: XmlObject, p: Expected & { createdUsers: number; usedSpace?: number }): void {
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['platform'])
  const node = doc.platform as XmlObject
  expect(Object.keys(node).sort()).toEqual([
    '@href',
    'created_users',
    'max_space',
    'max_users',
    'metadata',
    'name',
    'slug',
    'timestamps',
    'used_space',
  ])
  expect(node['@href']).toBe(`${app.url}/platform/${p.slug}`)
  expect(text(node.slug)).toBe(p.slug)
  expect(text(node.name)).toBe(p.name)
  expect(text(node.max_users)).toBe(String(p.maxUsers))
  expect(text(node.max_space)).toBe(String(p.maxSpace))
  expect(text(node.created_users)).toBe(String(p.createdUsers))
  expect(text(node.used_space)).toBe(String(p.usedSpace ?? 0))
  expect(node.metadata).toEqual({ '@href': `${app.url}/platform/${p.slug}/metadata` })
}

async function create(
  client: DigestClient,
  name: string,
  maxUsers: number | string = 0,
  maxSpace: number | string = 0,
): Promise<Response> {
  return client.post('/platforms', { form: { name, max_users: maxUsers, max_space: maxSpace } })
}

/** Creates a platform and returns its slug (asserting 201). */
async function createSlug(client: DigestClient, name: string, maxUsers = 0, maxSpace = 0): Promise<string> {
  const res = await create(client, name, maxUsers, maxSpace)
  expect(res.status, res.body).toBe(201)
  return text(parseXml(res.body).platform.slug)
}

async function slugsOf(client: DigestClient): Promise<string[]> {
  const res = await client.get('/platforms')
  return list<XmlObject>(xmlOf(res, 200).platforms.platform).map((p) => text(p.slug))
}

function multipart(fields: Record<string, string>): { body: string; headers: Record<string, string> } {
  const boundary = 'mediactl-test-boundary-7d1f'
  const body =
    Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') + `--${boundary}--\r\n`
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

describe('platforms API (installation administrator)', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(async () => app?.close())

  it('GET / answers services with the files link and the href of the root', async () => {
    const doc = xmlOf(await app.client.get('/'), 200)
    expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['services'])
    // No media exist: the files link is the only service.
    expect(doc.services).toEqual({ '@href': `${app.url}/`, files: { '@href': `${app.url}/files` } })
  })

  it('GET / without credentials gets 401 with a Digest challenge', async () => {
    const res = await rawRequest(`${app.url}/`, 'GET')
    expectError(res, 401, 'Authentication required: use HTTP Digest with your username and API key.')
    const challenge = String(res.headers['www-authenticate'])
    expect(challenge).toMatch(/^Digest /)
    expect(challenge).toContain('realm="mediactl"')
    expect(challenge).toContain('qop="auth"')
    expect(challenge).toContain('algorithm=MD5')
    expect(challenge).toContain('domain="/"')
    expect(challenge).toMatch(/nonce="[^"]+"/)
    expect(challenge).toMatch(/opaque="[^"]+"/)
    const platforms = await rawRequest(`${app.url}/platforms`, 'GET')
    expect(platforms.status).toBe(401)
  })

  it('POST /platforms answers 201 with the full platform info', async () => {
    const res = await create(app.client, 'Created Here', 7, 1048576)
    const doc = xmlOf(res, 201)
    expectInfo(app, doc, {
      slug: 'created-here',
      name: 'Created Here',
      maxUsers: 7,
      maxSpace: 1048576,
      createdUsers: 0,
    })
    // Strings in CDATA, integers as plain text.
    expect(res.body).toContain('<name><![CDATA[Created Here]]></name>')
    expect(res.body).toContain('<slug><![CDATA[created-here]]></slug>')
    expect(res.body).toContain('<max_users>7</max_users>')
    expect(res.body).toContain('<max_space>1048576</max_space>')
    expect(res.body).toContain('<created_users>0</created_users>')
    expect(res.body).toContain('<used_space>0</used_space>')
    // It is stored: info and list show it.
    expectInfo(app, xmlOf(await app.client.get('/platform/created-here'), 200), {
      slug: 'created-here',
      name: 'Created Here',
      maxUsers: 7,
      maxSpace: 1048576,
      createdUsers: 0,
    })
    const entries = list<XmlObject>(xmlOf(await app.client.get('/platforms'), 200).platforms.platform)
    const entry = entries.find((p) => text(p.slug) === 'created-here')
    expect(entry).toBeDefined()
    expectSummary(app, entry!, { slug: 'created-here', name: 'Created Here', maxUsers: 7, maxSpace: 1048576 })
  })

  it('POST /platforms accepts the largest values and multipart bodies', async () => {
    const big = xmlOf(await create(app.client, 'Big Quotas', 2147483647, Number.MAX_SAFE_INTEGER), 201)
    expect(text(big.platform.max_users)).toBe('2147483647')
    expect(text(big.platform.max_space)).toBe(String(Number.MAX_SAFE_INTEGER))
    const again = xmlOf(await app.client.get('/platform/big-quotas'), 200)
    expect(text(again.platform.max_users)).toBe('2147483647')
    expect(text(again.platform.max_space)).toBe(String(Number.MAX_SAFE_INTEGER))

    const form = multipart({ name: 'Multi Part', max_users: '3', max_space: '4' })
    const res = await app.client.post('/platforms', form)
    expectInfo(app, xmlOf(res, 201), {
      slug: 'multi-part',
      name: 'Multi Part',
      maxUsers: 3,
      maxSpace: 4,
      createdUsers: 0,
    })
  })

  it('names round-trip exactly, markup and CDATA terminators included', async () => {
    const name = 'Tricky <b>&amp;</b> "quoted" ]]> end'
    const doc = xmlOf(await create(app.client, name), 201)
    expect(text(doc.platform.name)).toBe(name)
    const slug = text(doc.platform.slug)
    expect(text(xmlOf(await app.client.get(`/platform/${slug}`), 200).platform.name)).toBe(name)
  })

  it('GET /platform/<slug> of the default platform counts its users, the administrator included', async () => {
    const em = app.kernel.em()
    const count = await em.count(UserEntity, { platform: { slug: 'default' } })
    expect(count).toBeGreaterThanOrEqual(1)
    expectInfo(app, xmlOf(await app.client.get('/platform/default'), 200), {
      slug: 'default',
      name: 'Default',
      maxUsers: 0,
      maxSpace: 0,
      createdUsers: count,
    })
    await app.createUser({ username: 'default-extra' })
    expect(text(xmlOf(await app.client.get('/platform/default'), 200).platform.created_users)).toBe(String(count + 1))
  })

  it('created_users is the exact number of users of the platform', async () => {
    const slug = await createSlug(app.client, 'Counted')
    const info = async (): Promise<string> =>
      text(xmlOf(await app.client.get(`/platform/${slug}`), 200).platform.created_users)
    expect(await info()).toBe('0')
    await app.createUser({ username: 'counted1', platform: slug })
    expect(await info()).toBe('1')
    await app.createUser({ username: 'counted2', platform: slug })
    await app.createUser({ username: 'counted3', platform: slug })
    expectInfo(app, xmlOf(await app.client.get(`/platform/${slug}`), 200), {
      slug,
      name: 'Counted',
      maxUsers: 0,
      maxSpace: 0,
      createdUsers: 3,
    })
    // Users of other platforms are not counted here.
    await app.createUser({ username: 'notcounted' })
    expect(await info()).toBe('3')
    // The list does not carry the figures.
    const entries = list<XmlObject>(xmlOf(await app.client.get('/platforms'), 200).platforms.platform)
    expectSummary(
      app,
      entries.find((p) => text(p.slug) === slug)!,
      { slug, name: 'Counted', maxUsers: 0, maxSpace: 0 },
    )
  })

  describe('slugs', () => {
    it('are lowercased with accents folded and other characters replaced by -', async () => {
      expect(await createSlug(app.client, 'Crème Brûlée à Montréal')).toBe('creme-brulee-a-montreal')
      expect(await createSlug(app.client, 'UPPER   Case__Name!!')).toBe('upper-case-name')
      expect(await createSlug(app.client, '  Ça & Là  ')).toBe('ca-la')
      expect(await createSlug(app.client, 'Łódź Straße Øresund Æther')).toBe('lodz-strasse-oresund-aether')
      expect(await createSlug(app.client, 'Ñandú 2024')).toBe('nandu-2024')
      const odd = await createSlug(app.client, '¡¿!?')
      expect(odd).toMatch(SLUG_SHAPE)
    })

    it('get -2, -3 on clash, including different names with the same slug', async () => {
      expect(await createSlug(app.client, 'Clash')).toBe('clash')
      expect(await createSlug(app.client, 'Clash')).toBe('clash-2')
      expect(await createSlug(app.client, 'CLASH!')).toBe('clash-3')
      expect(await createSlug(app.client, 'clásh')).toBe('clash-4')
      // Each one is its own platform.
      for (const slug of ['clash', 'clash-2', 'clash-3', 'clash-4']) {
        expect(text(xmlOf(await app.client.get(`/platform/${slug}`), 200).platform.slug)).toBe(slug)
      }
    })

    it('get distinct suffixes when the same name is created concurrently', async () => {
      const answers = await Promise.all(Array.from({ length: 5 }, () => create(app.client, 'Race Name')))
      for (const res of answers) expect(res.status, res.body).toBe(201)
      const slugs = answers.map((res) => text(parseXml(res.body).platform.slug)).sort()
      expect(slugs).toEqual(['race-name', 'race-name-2', 'race-name-3', 'race-name-4', 'race-name-5'])
    })

    it('are at most 64 characters, suffix included', async () => {
      const words = 'abcdefghi '.repeat(10).trim() // 99 characters once slugified
      const first = 'abcdefghi-'.repeat(6) + 'abcd'
      expect(first).toHaveLength(64)
      expect(await createSlug(app.client, words)).toBe(first)
      const second = await createSlug(app.client, words)
      expect(second).toBe('abcdefghi-'.repeat(6) + 'ab-2')
      expect(second).toHaveLength(64)
      expect(await createSlug(app.client, words)).toBe('abcdefghi-'.repeat(6) + 'ab-3')

      // A cut that lands on a separator does not leave a trailing -.
      const long = 'z'.repeat(63) + ' tail'
      expect(await createSlug(app.client, long)).toBe('z'.repeat(63))
      const clash = await createSlug(app.client, long)
      expect(clash).toBe('z'.repeat(62) + '-2')

      const max = 'Q'.repeat(255)
      const a = await createSlug(app.client, max)
      const b = await createSlug(app.client, max)
      expect(a).toBe('q'.repeat(64))
      expect(b).toBe('q'.repeat(62) + '-2')
      for (const slug of await slugsOf(app.client)) {
        expect(slug.length).toBeLessThanOrEqual(64)
        expect(slug).toMatch(SLUG_SHAPE)
      }
    })

    it('are never taken from the request and never change on rename', async () => {
      const res = await app.client.post('/platforms', {
        form: { name: 'Original Name', slug: 'chosen-by-client', max_users: 1, max_space: 2 },
      })
      expect(text(xmlOf(res, 201).platform.slug)).toBe('original-name')
      const put = await app.client.put('/platform/original-name', { form: { name: 'Renamed Entirely', slug: 'x' } })
      expectInfo(app, xmlOf(put, 200), {
        slug: 'original-name',
        name: 'Renamed Entirely',
        maxUsers: 1,
        maxSpace: 2,
        createdUsers: 0,
      })
      expectInfo(app, xmlOf(await app.client.get('/platform/original-name'), 200), {
        slug: 'original-name',
        name: 'Renamed Entirely',
        maxUsers: 1,
        maxSpace: 2,
        createdUsers: 0,
      })
      expectError(await app.client.get('/platform/renamed-entirely'), 404, notFoundMessage('renamed-entirely'))
      expectError(await app.client.get('/platform/chosen-by-client'), 404, notFoundMessage('chosen-by-client'))
      expectError(await app.client.get('/platform/x'), 404, notFoundMessage('x'))
      // The old slug stays taken.
      expect(await createSlug(app.client, 'Original Name')).toBe('original-name-2')
    })
  })

  describe('PUT /platform/<slug>', () => {
    const base = { name: 'Partial', maxUsers: 10, maxSpace: 1000, createdUsers: 0 }
    let slug: string
    beforeAll(async () => {
      slug = await createSlug(app.client, 'Partial', 10, 1000)
    })
    const current = async (): Promise<XmlObject> => xmlOf(await app.client.get(`/platform/${slug}`), 200)

    it('changes only the fields sent', async () => {
      expectInfo(app, xmlOf(await app.client.put(`/platform/${slug}`, { form: { max_users: 20 } }), 200), {
        ...base,
        slug,
        maxUsers: 20,
      })
      expectInfo(app, await current(), { ...base, slug, maxUsers: 20 })

      expectInfo(app, xmlOf(await app.client.put(`/platform/${slug}`, { form: { max_space: 0 } }), 200), {
        ...base,
        slug,
        maxUsers: 20,
        maxSpace: 0,
      })
      expectInfo(app, await current(), { ...base, slug, maxUsers: 20, maxSpace: 0 })

      expectInfo(app, xmlOf(await app.client.put(`/platform/${slug}`, { form: { name: 'Partial Two' } }), 200), {
        ...base,
        slug,
        name: 'Partial Two',
        maxUsers: 20,
        maxSpace: 0,
      })
      expectInfo(app, await current(), { ...base, slug, name: 'Partial Two', maxUsers: 20, maxSpace: 0 })

      // Nothing sent: nothing changes. Unknown fields are ignored.
      expectInfo(app, xmlOf(await app.client.put(`/platform/${slug}`, { form: { colour: 'blue' } }), 200), {
        ...base,
        slug,
        name: 'Partial Two',
        maxUsers: 20,
        maxSpace: 0,
      })
      expectInfo(app, xmlOf(await app.client.put(`/platform/${slug}`), 200), {
        ...base,
        slug,
        name: 'Partial Two',
        maxUsers: 20,
        maxSpace: 0,
      })

      // All three at once, multipart.
      const form = multipart({ name: 'Partial', max_users: '10', max_space: '1000' })
      expectInfo(app, xmlOf(await app.client.put(`/platform/${slug}`, form), 200), { ...base, slug })
      expectInfo(app, await current(), { ...base, slug })
    })

    it('answers 412 naming name when it is sent empty or too long, and stores nothing', async () => {
      expectError(await app.client.put(`/platform/${slug}`, { form: { name: '' } }), 412, INVALID, {
        name: 'cannot be empty',
      })
      expectError(await app.client.put(`/platform/${slug}`, { form: { name: '   ' } }), 412, INVALID, {
        name: 'cannot be empty',
      })
      expectError(await app.client.put(`/platform/${slug}`, { form: { name: 'n'.repeat(256) } }), 412, INVALID, {
        name: 'must be at most 255 characters',
      })
      expectError(await app.client.put(`/platform/${slug}`, { form: { name: 'é'.repeat(256) } }), 412, INVALID, {
        name: 'must be at most 255 characters',
      })
      expectInfo(app, await current(), { ...base, slug })

      // 255 characters (multi-byte ones too) are accepted.
      const longest = 'é'.repeat(255)
      expect(
        text(xmlOf(await app.client.put(`/platform/${slug}`, { form: { name: longest } }), 200).platform.name),
      ).toBe(longest)
      expect(text((await current()).platform.name)).toBe(longest)
      expect(
        text(xmlOf(await app.client.put(`/platform/${slug}`, { form: { name: 'Partial' } }), 200).platform.name),
      ).toBe('Partial')
    })

    it('answers 412 naming max_users or max_space when they are not whole numbers of 0 or more', async () => {
      const cases: [Record<string, string>, Record<string, string>][] = [
        [{ max_users: 'abc' }, { max_users: 'must be a whole number' }],
        [{ max_users: '-1' }, { max_users: 'must be between 0 and 2147483647' }],
        [{ max_users: '1.5' }, { max_users: 'must be a whole number' }],
        [{ max_users: '' }, { max_users: 'cannot be empty' }],
        [{ max_users: '2147483648' }, { max_users: 'must be between 0 and 2147483647' }],
        [{ max_space: 'lots' }, { max_space: 'must be a whole number' }],
        [{ max_space: '-5' }, { max_space: 'must be 0 or more' }],
        [{ max_space: '' }, { max_space: 'cannot be empty' }],
        [{ max_space: '9007199254740992' }, { max_space: 'must be a whole number' }],
      ]
      for (const [form, fields] of cases) {
        expectError(await app.client.put(`/platform/${slug}`, { form }), 412, INVALID, fields)
      }
      expectInfo(app, await current(), { ...base, slug })
    })

    it('answers one 412 listing every bad field, and stores none of the valid ones', async () => {
      expectError(
        await app.client.put(`/platform/${slug}`, { form: { name: '', max_users: 'abc', max_space: '-5' } }),
        412,
        INVALID,
        { name: 'cannot be empty', max_users: 'must be a whole number', max_space: 'must be 0 or more' },
      )
      expectError(
        await app.client.put(`/platform/${slug}`, {
          form: { name: 'Should Not Stick', max_users: '-1', max_space: 'x' },
        }),
        412,
        INVALID,
        { max_users: 'must be between 0 and 2147483647', max_space: 'must be a whole number' },
      )
      expectError(
        await app.client.put(`/platform/${slug}`, { form: { name: 'Nor This', max_users: '3', max_space: '' } }),
        412,
        INVALID,
        { max_space: 'cannot be empty' },
      )
      expectInfo(app, await current(), { ...base, slug })
    })

    it('answers 404 for an unknown slug, whatever the body', async () => {
      expectError(
        await app.client.put('/platform/no-such-platform', { form: { name: 'X' } }),
        404,
        notFoundMessage('no-such-platform'),
      )
      expectError(
        await app.client.put('/platform/no-such-platform', { form: { name: '' } }),
        404,
        notFoundMessage('no-such-platform'),
      )
      expect(await slugsOf(app.client)).not.toContain('x')
    })
  })

  describe('POST /platforms validation', () => {
    it('answers 412 listing name, max_users and max_space when they are missing, and creates nothing', async () => {
      const before = await slugsOf(app.client)
      expectError(await app.client.post('/platforms'), 412, INVALID, {
        name: 'is required',
        max_users: 'is required',
        max_space: 'is required',
      })
      expectError(await app.client.post('/platforms', { form: { other: 'x' } }), 412, INVALID, {
        name: 'is required',
        max_users: 'is required',
        max_space: 'is required',
      })
      expectError(
        await app.client.post('/platforms', { form: { name: '', max_users: '', max_space: '' } }),
        412,
        INVALID,
        {
          name: 'is required',
          max_users: 'is required',
          max_space: 'is required',
        },
      )
      expectError(await app.client.post('/platforms', { form: { name: 'Only Name' } }), 412, INVALID, {
        max_users: 'is required',
        max_space: 'is required',
      })
      expectError(await app.client.post('/platforms', { form: { max_users: 1, max_space: 1 } }), 412, INVALID, {
        name: 'is required',
      })
      expectError(await create(app.client, 'n'.repeat(256), 1, 1), 412, INVALID, {
        name: 'must be at most 255 characters',
      })
      expectError(await create(app.client, 'Bad Numbers', 'abc', '-1'), 412, INVALID, {
        max_users: 'must be a whole number',
        max_space: 'must be 0 or more',
      })
      expectError(await create(app.client, 'Too Many Users', '2147483648', 0), 412, INVALID, {
        max_users: 'must be between 0 and 2147483647',
      })
      expect(await slugsOf(app.client)).toEqual(before)
    })
  })

  describe('unknown slugs', () => {
    it('answer 404 to GET, PUT and DELETE', async () => {
      expectError(await app.client.get('/platform/nope'), 404, notFoundMessage('nope'))
      expectError(await app.client.put('/platform/nope', { form: { max_users: 1 } }), 404, notFoundMessage('nope'))
      expectError(await app.client.delete('/platform/nope'), 404, notFoundMessage('nope'))
      // Slugs are matched exactly.
      expectError(await app.client.get('/platform/DEFAULT'), 404, notFoundMessage('DEFAULT'))
    })
  })

  describe('DELETE /platform/<slug>', () => {
    it('answers 204 with no body, then the platform is gone', async () => {
      const slug = await createSlug(app.client, 'Doomed', 5, 5)
      const res = await app.client.delete(`/platform/${slug}`)
      expect(res.status).toBe(204)
      expect(res.body).toBe('')
      expect(res.headers['x-api-version']).toBe('2.14.3')
      expectError(await app.client.get(`/platform/${slug}`), 404, notFoundMessage(slug))
      expectError(await app.client.put(`/platform/${slug}`, { form: { name: 'Back' } }), 404, notFoundMessage(slug))
      expectError(await app.client.delete(`/platform/${slug}`), 404, notFoundMessage(slug))
      expect(await slugsOf(app.client)).not.toContain(slug)
    })

    it('removes the users and profiles of the platform; their credentials stop working', async () => {
      const slug = await createSlug(app.client, 'With Users')
      const keep = await createSlug(app.client, 'Keeps Users')
      const alice = await app.createUser({ username: 'alice-doomed', platform: slug })
      const bob = await app.createUser({ username: 'bob-doomed', platform: slug })
      const carol = await app.createUser({ username: 'carol-kept', platform: keep })
      expect((await alice.get('/')).status).toBe(200)
      expect((await bob.get(`/platform/${slug}`)).status).toBe(200)
      expect((await carol.get('/')).status).toBe(200)

      const em = app.kernel.em()
      const platform = await em.findOneOrFail(PlatformEntity, { slug })
      expect(await em.count(UserEntity, { platform })).toBe(2)
      expect(await em.count(ProfileEntity, { platform })).toBeGreaterThan(0)

      expect((await app.client.delete(`/platform/${slug}`)).status).toBe(204)

      for (const client of [alice, bob]) {
        const res = await client.get('/')
        expectError(res, 401, 'Wrong username or API key.')
        expect(String(res.headers['www-authenticate'])).toMatch(/^Digest /)
      }
      const check = app.kernel.em()
      expect(await check.count(UserEntity, { platform: platform.id })).toBe(0)
      expect(await check.count(ProfileEntity, { platform: platform.id })).toBe(0)
      expect(await check.count(UserEntity, { username: { $in: ['alice-doomed', 'bob-doomed'] } })).toBe(0)
      // Other platforms and their users are untouched.
      expect((await carol.get('/')).status).toBe(200)
      expect((await app.client.get('/')).status).toBe(200)
      expect(text(xmlOf(await app.client.get(`/platform/${keep}`), 200).platform.created_users)).toBe('1')
      // The username is free again.
      const again = await app.createUser({ username: 'alice-doomed', platform: keep })
      expect((await again.get('/')).status).toBe(200)
    })
  })

  it('every answer carries X-Api-Version, errors and 406 included', async () => {
    const res = await app.client.get('/platforms', { headers: { accept: 'application/json' } })
    expectError(res, 406, 'Only XML is available: send Accept: application/xml (or leave Accept out).')
  })
})

describe('platform lists: order and Range', () => {
  let app: TestApp
  const order = ['default', 'zulu', 'alpha', 'mike', 'bravo']
  beforeAll(async () => {
    app = await startApp()
    // Created in an order that is not alphabetical, with distinct quotas.
    await createSlug(app.client, 'Zulu', 1, 100)
    await createSlug(app.client, 'Alpha', 2, 200)
    await createSlug(app.client, 'Mike', 3, 300)
    await createSlug(app.client, 'Bravo', 4, 400)
  })
  afterAll(async () => app?.close())

  const expected = (slug: string): Expected => {
    const i = order.indexOf(slug)
    if (slug === 'default') return { slug, name: 'Default', maxUsers: 0, maxSpace: 0 }
    return { slug, name: slug[0]!.toUpperCase() + slug.slice(1), maxUsers: i, maxSpace: i * 100 }
  }

  it('GET /platforms lists every platform, oldest first, with every list field', async () => {
    const res = await app.client.get('/platforms')
    const doc = xmlOf(res, 200)
    expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['platforms'])
    expect(Object.keys(doc.platforms).sort()).toEqual(['@href', 'platform'])
    expect(doc.platforms['@href']).toBe(`${app.url}/platforms`)
    const entries = list<XmlObject>(doc.platforms.platform)
    expect(entries.map((p) => text(p.slug))).toEqual(order)
    for (const entry of entries) expectSummary(app, entry, expected(text(entry.slug)))
    expect(res.headers['content-range']).toBe('entities 0-4/5')
    expect(res.headers['accept-ranges']).toBe('entities')
  })

  it('renames do not reorder the list', async () => {
    expect((await app.client.put('/platform/zulu', { form: { name: 'Zulu' } })).status).toBe(200)
    expect((await app.client.put('/platform/alpha', { form: { name: 'Aaa' } })).status).toBe(200)
    expect(await slugsOf(app.client)).toEqual(order)
    expect((await app.client.put('/platform/alpha', { form: { name: 'Alpha' } })).status).toBe(200)
  })

  it('Range entities=0-1 answers the first two', async () => {
    const res = await app.client.get('/platforms', { headers: { range: 'entities=0-1' } })
    const entries = list<XmlObject>(xmlOf(res, 200).platforms.platform)
    expect(entries.map((p) => text(p.slug))).toEqual(['default', 'zulu'])
    for (const entry of entries) expectSummary(app, entry, expected(text(entry.slug)))
    expect(res.headers['content-range']).toBe('entities 0-1/5')
    expect(res.headers['accept-ranges']).toBe('entities')
  })

  it('Range entities=1- answers from the second to the end', async () => {
    const res = await app.client.get('/platforms', { headers: { range: 'entities=1-' } })
    const entries = list<XmlObject>(xmlOf(res, 200).platforms.platform)
    expect(entries.map((p) => text(p.slug))).toEqual(order.slice(1))
    for (const entry of entries) expectSummary(app, entry, expected(text(entry.slug)))
    expect(res.headers['content-range']).toBe('entities 1-4/5')
  })

  it('Range pages: middle, last, past-the-end end, first range only', async () => {
    const page = async (range: string): Promise<{ slugs: string[]; contentRange: unknown }> => {
      const res = await app.client.get('/platforms', { headers: { range } })
      const slugs = list<XmlObject>(xmlOf(res, 200).platforms.platform).map((p) => text(p.slug))
      return { slugs, contentRange: res.headers['content-range'] }
    }
    expect(await page('entities=2-3')).toEqual({ slugs: ['alpha', 'mike'], contentRange: 'entities 2-3/5' })
    expect(await page('entities=4-4')).toEqual({ slugs: ['bravo'], contentRange: 'entities 4-4/5' })
    expect(await page('entities=3-99')).toEqual({ slugs: ['mike', 'bravo'], contentRange: 'entities 3-4/5' })
    expect(await page('entities=0-0,2-3')).toEqual({ slugs: ['default'], contentRange: 'entities 0-0/5' })
  })

  it('a start past the end answers an empty page, a malformed Range 416, both with the total', async () => {
    for (const range of ['entities=5-', 'entities=9-10']) {
      const res = await app.client.get('/platforms', { headers: { range } })
      expect(list<XmlObject>(xmlOf(res, 200).platforms.platform)).toEqual([])
      expect(res.headers['content-range']).toBe('entities */5')
    }
    for (const range of ['bytes=0-1', 'entities=3-1', 'entities=a-b']) {
      const res = await app.client.get('/platforms', { headers: { range } })
      expect(res.status).toBe(416)
      expect(res.headers['content-range']).toBe('entities */5')
    }
  })

  it('a deleted platform leaves the list and the totals', async () => {
    expect((await app.client.delete('/platform/alpha')).status).toBe(204)
    const res = await app.client.get('/platforms', { headers: { range: 'entities=1-' } })
    expect(list<XmlObject>(xmlOf(res, 200).platforms.platform).map((p) => text(p.slug))).toEqual([
      'zulu',
      'mike',
      'bravo',
    ])
    expect(res.headers['content-range']).toBe('entities 1-3/4')
  })
})

describe('platform authorization', () => {
  let app: TestApp
  /** A user of the default platform with its default "Administrator" profile (no instance.view). */
  let owner: DigestClient
  /** A user of another platform, also with that platform's "Administrator" profile. */
  let stranger: DigestClient
  let otherSlug: string

  beforeAll(async () => {
    app = await startApp()
    otherSlug = await createSlug(app.client, 'Other Tenant', 9, 99)
    owner = await app.createUser({ username: 'owner' })
    stranger = await app.createUser({ username: 'stranger', platform: otherSlug })
  })
  afterAll(async () => app?.close())

  const otherInfo = async (): Promise<XmlObject> => xmlOf(await app.client.get(`/platform/${otherSlug}`), 200)

  it('a platform administrator may not list or create platforms (403)', async () => {
    expectError(await owner.get('/platforms'), 403, NEEDS('instance.view'))
    expectError(await owner.get('/platforms', { headers: { range: 'entities=0-0' } }), 403, NEEDS('instance.view'))
    expectError(await create(owner, 'Sneaky', 0, 0), 403, NEEDS('instance.view'))
    expectError(await owner.post('/platforms'), 403, NEEDS('instance.view'))
    expect(await slugsOf(app.client)).toEqual(['default', otherSlug])
  })

  it('a platform administrator reads and updates their own platform', async () => {
    const created = Number(text(xmlOf(await app.client.get('/platform/default'), 200).platform.created_users))
    expect(created).toBe(2) // admin and owner
    expectInfo(app, xmlOf(await owner.get('/platform/default'), 200), {
      slug: 'default',
      name: 'Default',
      maxUsers: 0,
      maxSpace: 0,
      createdUsers: 2,
    })
    expectInfo(app, xmlOf(await owner.put('/platform/default', { form: { name: 'Default Renamed' } }), 200), {
      slug: 'default',
      name: 'Default Renamed',
      maxUsers: 0,
      maxSpace: 0,
      createdUsers: 2,
    })
    expect(text(xmlOf(await app.client.get('/platform/default'), 200).platform.name)).toBe('Default Renamed')
    // Validation applies to them too.
    expectError(await owner.put('/platform/default', { form: { name: '' } }), 412, INVALID, { name: 'cannot be empty' })
    expect((await owner.put('/platform/default', { form: { name: 'Default' } })).status).toBe(200)
  })

  it('a platform administrator chooses the date-time dialect of their clients; 412 for another word', async () => {
    const dialect = async (): Promise<string> =>
      text(xmlOf(await app.client.get('/platform/default'), 200).platform.timestamps)
    expect(await dialect()).toBe('')
    expect(
      text(xmlOf(await owner.put('/platform/default', { form: { timestamps: 'unix' } }), 200).platform.timestamps),
    ).toBe('unix')
    expect(await dialect()).toBe('unix')
    expectError(await owner.put('/platform/default', { form: { timestamps: 'epoch' } }), 412, INVALID, {
      timestamps: 'must be one of: iso8601, unix',
    })
    expect(await dialect()).toBe('unix')
    // Sent empty: back to the installation's api.timestamps.
    expect((await owner.put('/platform/default', { form: { timestamps: '' } })).status).toBe(200)
    expect(await dialect()).toBe('')
  })

  it('a platform administrator may not change their own quotas (403), and nothing is stored', async () => {
    const quota = 'Only installation administrators change max_users and max_space.'
    expectError(await owner.put('/platform/default', { form: { max_users: 1000 } }), 403, quota)
    expectError(await owner.put('/platform/default', { form: { max_space: 1 } }), 403, quota)
    expectError(await owner.put('/platform/default', { form: { name: 'Grown', max_users: 5 } }), 403, quota)
    const info = xmlOf(await app.client.get('/platform/default'), 200).platform
    expect(text(info.name)).toBe('Default')
    expect(text(info.max_users)).toBe('0')
    expect(text(info.max_space)).toBe('0')
    expect((await app.client.put('/platform/default', { form: { max_users: 0, max_space: 0 } })).status).toBe(200)
  })

  it('a platform administrator may not delete their own platform (403)', async () => {
    expectError(await owner.delete('/platform/default'), 403, NEEDS('instance.view'))
    expect((await owner.get('/platform/default')).status).toBe(200)
    expect((await app.client.get('/platform/default')).status).toBe(200)
  })

  it('another platform is invisible to them: 404 for GET, PUT and DELETE', async () => {
    expectError(await owner.get(`/platform/${otherSlug}`), 404, notFoundMessage(otherSlug))
    expectError(
      await owner.put(`/platform/${otherSlug}`, { form: { name: 'Hijacked', max_users: 1 } }),
      404,
      notFoundMessage(otherSlug),
    )
    expectError(await owner.delete(`/platform/${otherSlug}`), 404, notFoundMessage(otherSlug))
    // Unknown and invisible answer the same.
    expectError(await owner.get('/platform/never-existed'), 404, notFoundMessage('never-existed'))
    expectInfo(app, await otherInfo(), {
      slug: otherSlug,
      name: 'Other Tenant',
      maxUsers: 9,
      maxSpace: 99,
      createdUsers: 1,
    })
  })

  it('a user of another platform cannot see the first one, but sees their own', async () => {
    expectError(await stranger.get('/platform/default'), 404, notFoundMessage('default'))
    expectError(
      await stranger.put('/platform/default', { form: { name: 'Hijacked' } }),
      404,
      notFoundMessage('default'),
    )
    expectError(await stranger.delete('/platform/default'), 404, notFoundMessage('default'))
    expectError(await stranger.get('/platforms'), 403, NEEDS('instance.view'))
    expectInfo(app, xmlOf(await stranger.get(`/platform/${otherSlug}`), 200), {
      slug: otherSlug,
      name: 'Other Tenant',
      maxUsers: 9,
      maxSpace: 99,
      createdUsers: 1,
    })
    expect(text(xmlOf(await app.client.get('/platform/default'), 200).platform.name)).toBe('Default')
  })

  it('GET / answers the same services to a platform user', async () => {
    const doc = xmlOf(await owner.get('/'), 200)
    expect(doc.services).toEqual({ '@href': `${app.url}/`, files: { '@href': `${app.url}/files` } })
  })

  it('platform.view and platform.edit of the profile gate info and update', async () => {
    const em = app.kernel.em()
    const platform = await em.findOneOrFail(PlatformEntity, { slug: 'default' })
    const viewerProfile = await em.findOneOrFail(ProfileEntity, { platform, name: 'Viewer' })
    const realm = app.kernel.config.auth.realm
    const viewerKey = (
      await createUser(em, { platform, profile: viewerProfile, username: 'viewer', email: 'viewer@example.org', realm })
    ).apiKey
    const viewer = app.clientFor('viewer', viewerKey)
    expect(text(xmlOf(await viewer.get('/platform/default'), 200).platform.slug)).toBe('default')
    expectError(await viewer.put('/platform/default', { form: { max_users: 1 } }), 403, NEEDS_ROLE('platform.edit'))
    expectError(await viewer.delete('/platform/default'), 403, NEEDS('instance.view'))
    expect(text(xmlOf(await app.client.get('/platform/default'), 200).platform.max_users)).toBe('0')

    const bare = em.create(ProfileEntity, {
      slug: 'default-bare',
      name: 'Bare',
      quota: 0,
      permissions: [],
      platform,
      createdAt: new Date(),
    })
    await em.flush()
    const bareKey = (
      await createUser(em, { platform, profile: bare, username: 'bare', email: 'bare@example.org', realm })
    ).apiKey
    const nobody = app.clientFor('bare', bareKey)
    // Without platform.view (from the profile or an access) their own platform is not visible to them.
    expectError(await nobody.get('/platform/default'), 404, notFoundMessage('default'))
    expectError(await nobody.put('/platform/default', { form: { name: 'X' } }), 404, notFoundMessage('default'))
    expectError(await nobody.get(`/platform/${otherSlug}`), 404, notFoundMessage(otherSlug))
    expectError(await nobody.get('/platforms'), 403, NEEDS('instance.view'))
  })

  it('the platform holding every installation administrator cannot be deleted (412)', async () => {
    expectError(
      await app.client.delete('/platform/default'),
      412,
      'Deleting this platform would remove every installation administrator: create one on another platform first (mediactl user create --admin).',
      { platform: 'holds the last installation administrator' },
    )
    expect((await app.client.get('/platform/default')).status).toBe(200)
    expect((await owner.get('/platform/default')).status).toBe(200)
  })

  it('the installation administrator deletes another platform; its users lose access', async () => {
    expect((await stranger.get(`/platform/${otherSlug}`)).status).toBe(200)
    expect((await app.client.delete(`/platform/${otherSlug}`)).status).toBe(204)
    expectError(await stranger.get('/'), 401, 'Wrong username or API key.')
    expectError(await app.client.get(`/platform/${otherSlug}`), 404, notFoundMessage(otherSlug))
    expect((await owner.get('/platform/default')).status).toBe(200)
  })
})
