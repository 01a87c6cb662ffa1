import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PluginDefinition, definePlugin } from '../../../src/kernel/index.js'
import { ChannelEntity } from '../../../plugins/channels/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { INVALID, expectError, keysOf, userWithFlags, xmlOf } from '../identity/permissions.fixtures.js'

/** What one channel element must show; theme and skin only for themed types. */
interface Expected {
  slug: string
  name: string
  type: string
  online?: 'true' | 'false'
  /** Themed types: the theme and skin shown ('' when unset). */
  theming?: { theme: string; skin: string }
  media?: string
}

/** Adds a themed type (`kiosk`) and an unthemed one (`podcast`) through the registry's event. */
const typesPlugin: PluginDefinition = definePlugin({
  name: 'test-channel-types',
  dependsOn: ['channels'],
  register(ctx) {
    ctx.on('channels.types', ({ add }) => {
      add({ type: 'kiosk', themed: true, players: true, flavors: () => [] })
      add({ type: 'podcast', themed: false, players: false, flavors: () => [] })
    })
  },
})

const THEMED = 'web or kiosk'

let app: TestApp

const channelUrl = (media: string, slug: string): string => `${app.url}/media/${media}/channel/${slug}`

function expectChannel(node: XmlObject, e: Expected, info: boolean): void {
  const keys = [
    ...['@href', 'is_online', 'name', 'slug', 'type'],
    ...(e.theming ? ['skin', 'theme'] : []),
    ...(e.type === 'syndication' ? ['feed'] : []),
  ]
  expect(keysOf(node)).toEqual([...keys, ...(info ? ['media'] : [])].sort())
  const media = e.media ?? 'news'
  expect(node['@href']).toBe(channelUrl(media, e.slug))
  expect(text(node.slug)).toBe(e.slug)
  expect(text(node.name)).toBe(e.name)
  expect(text(node.type)).toBe(e.type)
  expect(text(node.is_online)).toBe(e.online ?? 'true')
  if (e.theming) {
    expect(text(node.theme)).toBe(e.theming.theme)
    expect(text(node.skin)).toBe(e.theming.skin)
  }
  if (info) expect(node.media).toEqual({ '@href': `${app.url}/media/${media}` })
}

/** Checks a channel info answer (info, create and update). */
function expectInfo(res: Parameters<typeof xmlOf>[0], status: number, e: Expected): void {
  const doc = xmlOf(res, status)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['channel'])
  expectChannel(doc.channel as XmlObject, e, true)
}

const entries = (doc: XmlObject): XmlObject[] => list<XmlObject>(doc.channels.channel)
const slugsOf = (doc: XmlObject): string[] => entries(doc).map((c) => text(c.slug))

async function listSlugs(media: string, client: DigestClient = app.client): Promise<string[]> {
  return slugsOf(xmlOf(await client.get(`/media/${media}/channels`), 200))
}

/** Creates a media on a platform as the administrator and returns its slug. */
async function createMedia(name: string, domain: string, platform = 'default'): Promise<string> {
  const res = await app.client.post(`/platform/${platform}/medias`, {
    form: { name, domain_name: domain, contact_email: 'team@example.org' },
  })
  return text(xmlOf(res, 201).media.slug)
}

/** Creates a channel (asserting 201) and returns its slug. */
async function create(
  form: Record<string, string>,
  media = 'news',
  client: DigestClient = app.client,
): Promise<string> {
  const res = await client.post(`/media/${media}/channels`, { form })
  return text(xmlOf(res, 201).channel.slug)
}

const post = (form: Record<string, string>, media = 'news', client: DigestClient = app.client) =>
  client.post(`/media/${media}/channels`, { form })

const put = (slug: string, form: Record<string, string>, media = 'news', client: DigestClient = app.client) =>
  client.put(`/media/${media}/channel/${slug}`, { form })

const channelCount = (): Promise<number> => app.kernel.em().count(ChannelEntity, {})

describe('publication channels API', () => {
  beforeAll(async () => {
    app = await startApp({ plugins: [typesPlugin] })
    expect(await createMedia('News', 'news.example.org')).toBe('news')
  })
  afterAll(async () => app?.close())

  it('a new media has a Web and a Widget channel, online, in that order; only web shows theme and skin', async () => {
    const res = await app.client.get('/media/news/channels')
    const doc = xmlOf(res, 200)
    expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['channels'])
    expect(doc.channels['@href']).toBe(`${app.url}/media/news/channels`)
    expect(entries(doc)).toHaveLength(2)
    expectChannel(
      entries(doc)[0]!,
      { slug: 'news-web', name: 'Web', type: 'web', theming: { theme: '', skin: '' } },
      false,
    )
    expectChannel(entries(doc)[1]!, { slug: 'news-widget', name: 'Widget', type: 'widget' }, false)
    expect(res.body).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<channels href="${app.url}/media/news/channels">` +
        `<channel href="${channelUrl('news', 'news-web')}"><slug><![CDATA[news-web]]></slug><name><![CDATA[Web]]></name><type><![CDATA[web]]></type><is_online>true</is_online><theme><![CDATA[]]></theme><skin><![CDATA[]]></skin></channel>` +
        `<channel href="${channelUrl('news', 'news-widget')}"><slug><![CDATA[news-widget]]></slug><name><![CDATA[Widget]]></name><type><![CDATA[widget]]></type><is_online>true</is_online></channel>` +
        `</channels>`,
    )
    expect(res.headers['content-range']).toBe('entities 0-1/2')
    expect(res.headers['accept-ranges']).toBe('entities')
    // The media links to its channels.
    expect(xmlOf(await app.client.get('/media/news'), 200).media.channels['@href']).toBe(
      `${app.url}/media/news/channels`,
    )
  })

  it('POST answers 201 with the channel and its media link; info answers the same', async () => {
    const res = await post({ type: 'api', name: 'Partner API' })
    const expected: Expected = { slug: 'partner-api', name: 'Partner API', type: 'api' }
    expectInfo(res, 201, expected)
    expect(res.body).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<channel href="${channelUrl('news', 'partner-api')}"><slug><![CDATA[partner-api]]></slug><name><![CDATA[Partner API]]></name><type><![CDATA[api]]></type><is_online>true</is_online><media href="${app.url}/media/news"/></channel>`,
    )
    expectInfo(await app.client.get('/media/news/channel/partner-api'), 200, expected)
    const web = await app.client.get('/media/news/channel/news-web')
    expectInfo(web, 200, { slug: 'news-web', name: 'Web', type: 'web', theming: { theme: '', skin: '' } })
    expect(web.body).toContain(
      '<is_online>true</is_online><theme><![CDATA[]]></theme><skin><![CDATA[]]></skin><media href=',
    )
  })

  it('a web channel takes a theme and a skin; the slug comes from the name, -2 on a clash', async () => {
    const res = await post({ type: 'web', name: 'Web', theme: 'cinema', skin: 'dark', is_online: '1' })
    expectInfo(res, 201, { slug: 'web', name: 'Web', type: 'web', theming: { theme: 'cinema', skin: 'dark' } })
    expect(await create({ type: 'web', name: 'Web' })).toBe('web-2')
    expectInfo(await app.client.get('/media/news/channel/web'), 200, {
      slug: 'web',
      name: 'Web',
      type: 'web',
      theming: { theme: 'cinema', skin: 'dark' },
    })
  })

  it('is_online defaults to true and takes 0/1 and true/false', async () => {
    const cases: [string, 'true' | 'false'][] = [
      ['0', 'false'],
      ['false', 'false'],
      ['FALSE', 'false'],
      ['1', 'true'],
      ['true', 'true'],
    ]
    for (const [sent, shown] of cases) {
      const slug = await create({ type: 'syndication', name: `Feed ${sent}`, is_online: sent })
      expectInfo(await app.client.get(`/media/news/channel/${slug}`), 200, {
        slug,
        name: `Feed ${sent}`,
        type: 'syndication',
        online: shown,
      })
    }
  })

  it('the set of types is open: any word of letters, digits, - and _ is accepted, stored lowercase', async () => {
    const res = await post({ type: 'Carrier-Pigeon_2', name: 'Birds' })
    expectInfo(res, 201, { slug: 'birds', name: 'Birds', type: 'carrier-pigeon_2' })
    // A type added by a plugin through `channels.types`, themed: it takes a theme and shows it.
    expectInfo(await post({ type: 'kiosk', name: 'Lobby', theme: 'big', skin: '' }), 201, {
      slug: 'lobby',
      name: 'Lobby',
      type: 'kiosk',
      theming: { theme: 'big', skin: '' },
    })
    expectInfo(await post({ type: 'podcast', name: 'Podcast' }), 201, {
      slug: 'podcast',
      name: 'Podcast',
      type: 'podcast',
    })
  })

  it('names keep what was sent, ]]> and ../ included', async () => {
    const name = 'A ]]> tricky ../ name'
    const res = await post({ type: 'api', name })
    expect(res.body).toContain('<name><![CDATA[A ]]]]><![CDATA[> tricky ../ name]]></name>')
    expectInfo(res, 201, { slug: 'a-tricky-name', name, type: 'api' })
  })

  describe('412', () => {
    it('name and type are required; every failing field is listed; nothing is stored', async () => {
      const before = await channelCount()
      expectError(await post({}), 412, INVALID, { name: 'is required', type: 'is required' })
      expectError(await post({ name: ' ', type: '' }), 412, INVALID, { name: 'is required', type: 'is required' })
      expectError(await post({ name: 'x'.repeat(65), type: 'y'.repeat(65), is_online: 'maybe' }), 412, INVALID, {
        name: 'must be at most 64 characters',
        type: 'must be at most 64 characters',
        is_online: 'must be 0 or 1',
      })
      expectError(await post({ name: 'Empty flag', type: 'web', is_online: '' }), 412, INVALID, {
        is_online: 'must be 0 or 1',
      })
      expectError(await post({ name: 'Spaces', type: 'two words' }), 412, INVALID, {
        type: 'must be one word of letters, digits, - and _ (web, widget, api, syndication, ...)',
      })
      expectError(
        await post({ name: 'Long theme', type: 'web', theme: 't'.repeat(65), skin: 's'.repeat(65) }),
        412,
        INVALID,
        {
          theme: 'must be at most 64 characters',
          skin: 'must be at most 64 characters',
        },
      )
      expect(await channelCount()).toBe(before)
    })

    it('64 characters are accepted for name and type', async () => {
      const slug = await create({ name: 'n'.repeat(64), type: 't'.repeat(64) })
      expectInfo(await app.client.get(`/media/news/channel/${slug}`), 200, {
        slug,
        name: 'n'.repeat(64),
        type: 't'.repeat(64),
      })
    })

    it('theme and skin only on themed types (web): on api, on an unknown type, on widget', async () => {
      const before = await channelCount()
      expectError(await post({ name: 'Api', type: 'api', theme: 'cinema' }), 412, INVALID, {
        theme: `only ${THEMED} channels have a theme`,
      })
      expectError(await post({ name: 'Other', type: 'something-else', skin: 'dark' }), 412, INVALID, {
        skin: `only ${THEMED} channels have a skin`,
      })
      expectError(await post({ name: 'Widget', type: 'widget', theme: 'a', skin: 'b' }), 412, INVALID, {
        theme: `only ${THEMED} channels have a theme`,
        skin: `only ${THEMED} channels have a skin`,
      })
      expect(await channelCount()).toBe(before)
      // Sent empty, they are accepted anywhere (nothing to set).
      expectInfo(await post({ name: 'Blank', type: 'api', theme: '', skin: '' }), 201, {
        slug: 'blank',
        name: 'Blank',
        type: 'api',
      })
    })
  })

  describe('PUT', () => {
    it('is a partial update answering 201 with the channel; the slug never changes', async () => {
      const slug = await create({ type: 'web', name: 'Site', theme: 'classic', skin: 'light' })
      expectInfo(await put(slug, { name: 'Renamed site' }), 201, {
        slug,
        name: 'Renamed site',
        type: 'web',
        theming: { theme: 'classic', skin: 'light' },
      })
      expectInfo(await put(slug, { is_online: 'false', skin: 'dark' }), 201, {
        slug,
        name: 'Renamed site',
        type: 'web',
        online: 'false',
        theming: { theme: 'classic', skin: 'dark' },
      })
      // A field sent empty is cleared.
      expectInfo(await put(slug, { theme: '' }), 201, {
        slug,
        name: 'Renamed site',
        type: 'web',
        online: 'false',
        theming: { theme: '', skin: 'dark' },
      })
      expectInfo(await app.client.get(`/media/news/channel/${slug}`), 200, {
        slug,
        name: 'Renamed site',
        type: 'web',
        online: 'false',
        theming: { theme: '', skin: 'dark' },
      })
      expectInfo(await put(slug, {}), 201, {
        slug,
        name: 'Renamed site',
        type: 'web',
        online: 'false',
        theming: { theme: '', skin: 'dark' },
      })
    })

    it('name and type cannot be emptied; values are checked as on create; nothing changes', async () => {
      const slug = await create({ type: 'api', name: 'Checked' })
      expectError(await put(slug, { name: '', type: ' ' }), 412, INVALID, {
        name: 'cannot be empty',
        type: 'cannot be empty',
      })
      expectError(await put(slug, { name: 'x'.repeat(65), is_online: '' }), 412, INVALID, {
        name: 'must be at most 64 characters',
        is_online: 'must be 0 or 1',
      })
      expectError(await put(slug, { theme: 'cinema' }), 412, INVALID, { theme: `only ${THEMED} channels have a theme` })
      expectInfo(await app.client.get(`/media/news/channel/${slug}`), 200, { slug, name: 'Checked', type: 'api' })
    })

    it('a themed web channel changes type only when theme and skin are cleared in the same request', async () => {
      const slug = await create({ type: 'web', name: 'Moving', theme: 'classic', skin: 'light' })
      expectError(await put(slug, { type: 'api' }), 412, INVALID, {
        type: `cannot become api while the channel has a theme and a skin (only ${THEMED} channels have them): send theme and skin empty in the same request`,
      })
      expectError(await put(slug, { type: 'api', theme: '' }), 412, INVALID, {
        type: `cannot become api while the channel has a skin (only ${THEMED} channels have them): send skin empty in the same request`,
      })
      expectError(await put(slug, { type: 'api', theme: 'other' }), 412, INVALID, {
        theme: `only ${THEMED} channels have a theme`,
      })
      // Another themed type keeps them.
      expectInfo(await put(slug, { type: 'kiosk' }), 201, {
        slug,
        name: 'Moving',
        type: 'kiosk',
        theming: { theme: 'classic', skin: 'light' },
      })
      expectInfo(await put(slug, { type: 'API', theme: '', skin: '' }), 201, { slug, name: 'Moving', type: 'api' })
      // They were cleared, not hidden.
      expectInfo(await put(slug, { type: 'web' }), 201, {
        slug,
        name: 'Moving',
        type: 'web',
        theming: { theme: '', skin: '' },
      })
    })

    it('a web channel without theme or skin changes type freely', async () => {
      const slug = await create({ type: 'web', name: 'Plain web' })
      expectInfo(await put(slug, { type: 'widget' }), 201, { slug, name: 'Plain web', type: 'widget' })
    })
  })

  it('DELETE answers 204; the channel is gone from info and list', async () => {
    const slug = await create({ type: 'api', name: 'Doomed' })
    expect(await listSlugs('news')).toContain(slug)
    const res = await app.client.delete(`/media/news/channel/${slug}`)
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expectError(await app.client.get(`/media/news/channel/${slug}`), 404, `No channel "${slug}" in media "news".`)
    expectError(await app.client.delete(`/media/news/channel/${slug}`), 404, `No channel "${slug}" in media "news".`)
    expect(await listSlugs('news')).not.toContain(slug)
  })

  it('lists in creation order and pages with Range', async () => {
    const slugs = await listSlugs('news')
    expect(slugs.slice(0, 4)).toEqual(['news-web', 'news-widget', 'partner-api', 'web'])
    const page = await app.client.get('/media/news/channels', { headers: { range: 'entities=1-2' } })
    expect(slugsOf(xmlOf(page, 200))).toEqual(['news-widget', 'partner-api'])
    expect(page.headers['content-range']).toBe(`entities 1-2/${slugs.length}`)
    const tail = await app.client.get('/media/news/channels', { headers: { range: `entities=${slugs.length - 1}-` } })
    expect(slugsOf(xmlOf(tail, 200))).toEqual([slugs.at(-1)])
    const past = await app.client.get('/media/news/channels', { headers: { range: 'entities=500-600' } })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe(`entities */${slugs.length}`)
  })

  it('404: an unknown media, an unknown channel, a channel of another media under this media', async () => {
    expect(await createMedia('Sport', 'sport.example.org')).toBe('sport')
    expect(await listSlugs('sport')).toEqual(['sport-web', 'sport-widget'])
    expectError(await app.client.get('/media/nope/channels'), 404, 'No media "nope".')
    expectError(await post({ name: 'x', type: 'api' }, 'nope'), 404, 'No media "nope".')
    expectError(await app.client.get('/media/news/channel/nope'), 404, 'No channel "nope" in media "news".')
    const foreign = 'No channel "news-web" in media "sport".'
    expectError(await app.client.get('/media/sport/channel/news-web'), 404, foreign)
    expectError(await put('news-web', { name: 'Stolen' }, 'sport'), 404, foreign)
    expectError(await app.client.delete('/media/sport/channel/news-web'), 404, foreign)
    expectInfo(await app.client.get('/media/news/channel/news-web'), 200, {
      slug: 'news-web',
      name: 'Web',
      type: 'web',
      theming: { theme: '', skin: '' },
    })
  })

  it('default channel slugs keep the channel name within 64 characters, even for a 64-character media slug', async () => {
    const long = await createMedia('m'.repeat(70), 'long.example.org')
    expect(long).toBe('m'.repeat(64))
    expect(await listSlugs(long)).toEqual([`${'m'.repeat(60)}-web`, `${'m'.repeat(57)}-widget`])
    expect((await app.client.delete(`/media/${long}`)).status).toBe(204)
  })

  it('deleting a media deletes its channels', async () => {
    expect(await createMedia('Short lived', 'short.example.org')).toBe('short-lived')
    await create({ type: 'api', name: 'Short API' }, 'short-lived')
    const slugs = await listSlugs('short-lived')
    expect(slugs).toEqual(['short-lived-web', 'short-lived-widget', 'short-api'])
    const before = await channelCount()
    expect((await app.client.delete('/media/short-lived')).status).toBe(204)
    expect(await app.kernel.em().count(ChannelEntity, { slug: { $in: slugs } })).toBe(0)
    expect(await channelCount()).toBe(before - 3)
    expectError(await app.client.get('/media/short-lived/channels'), 404, 'No media "short-lived".')
  })

  describe('authorization', () => {
    let viewer: DigestClient
    let editor: DigestClient
    let stranger: DigestClient
    let outsider: DigestClient

    /** Creates a role with these `permission[...]` fields and grants it to a user on the media news. */
    async function grantRole(username: string, name: string, permissions: Record<string, string>): Promise<void> {
      const role = await app.client.post('/platform/default/roles', { form: { name, ...permissions } })
      const slug = text(xmlOf(role, 201).role.slug)
      const access = await app.client.post(`/user/${username}/accesses`, { form: { media: 'news', role: slug } })
      expect(access.status, access.body).toBe(201)
    }

    beforeAll(async () => {
      viewer = await userWithFlags(app, 'chan-viewer', ['platform.view'])
      editor = await userWithFlags(app, 'chan-editor', ['platform.view'])
      stranger = await userWithFlags(app, 'chan-stranger', ['platform.view'])
      await grantRole('chan-viewer', 'Channel viewer', { 'permission[Media][view]': '1' })
      await grantRole('chan-editor', 'Channel editor', {
        'permission[Media][view]': '1',
        'permission[Media][edit]': '1',
      })
      const other = xmlOf(
        await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }),
        201,
      )
      outsider = await app.createUser({ username: 'chan-outsider', platform: text(other.platform.slug) })
    })

    it('401 without credentials', async () => {
      for (const [method, path] of [
        ['GET', '/media/news/channels'],
        ['POST', '/media/news/channels'],
        ['GET', '/media/news/channel/news-web'],
        ['PUT', '/media/news/channel/news-web'],
        ['DELETE', '/media/news/channel/news-web'],
      ] as const) {
        const res = await rawRequest(`${app.url}${path}`, method)
        expect(res.status, `${method} ${path}`).toBe(401)
        expect(res.headers['www-authenticate']).toMatch(/^Digest /)
      }
    })

    it('404 for a user of another platform (even its administrator) and for one who may not see the media', async () => {
      for (const client of [outsider, stranger]) {
        expectError(await client.get('/media/news/channels'), 404, 'No media "news".')
        expectError(await client.get('/media/news/channel/news-web'), 404, 'No media "news".')
        expectError(await post({ name: 'x', type: 'api' }, 'news', client), 404, 'No media "news".')
        expectError(await put('news-web', { name: 'x' }, 'news', client), 404, 'No media "news".')
        expectError(await client.delete('/media/news/channel/news-web'), 404, 'No media "news".')
      }
    })

    it('media.view reads; creating, changing and deleting need media.edit (403), nothing changes', async () => {
      expect(await listSlugs('news', viewer)).toEqual(await listSlugs('news'))
      expectInfo(await viewer.get('/media/news/channel/partner-api'), 200, {
        slug: 'partner-api',
        name: 'Partner API',
        type: 'api',
      })
      const needsEdit = 'This needs the "media.edit" permission.'
      const before = await channelCount()
      expectError(await post({ name: 'x', type: 'api' }, 'news', viewer), 403, needsEdit)
      expectError(await put('partner-api', { name: 'x' }, 'news', viewer), 403, needsEdit)
      expectError(await viewer.delete('/media/news/channel/partner-api'), 403, needsEdit)
      expect(await channelCount()).toBe(before)
      expectInfo(await app.client.get('/media/news/channel/partner-api'), 200, {
        slug: 'partner-api',
        name: 'Partner API',
        type: 'api',
      })
      // The access is on news only: sport stays invisible.
      expectError(await viewer.get('/media/sport/channels'), 404, 'No media "sport".')
    })

    it('media.edit manages channels; a theme or skin change also needs media.change_theme (403)', async () => {
      const slug = await create({ name: 'Editor site', type: 'web' }, 'news', editor)
      expectInfo(await put(slug, { name: 'Edited', is_online: '0' }, 'news', editor), 201, {
        slug,
        name: 'Edited',
        type: 'web',
        online: 'false',
        theming: { theme: '', skin: '' },
      })
      const needsTheme = 'This needs the "media.change_theme" permission.'
      const before = await channelCount()
      expectError(await post({ name: 'Themed', type: 'web', theme: 'cinema' }, 'news', editor), 403, needsTheme)
      expect(await channelCount()).toBe(before)
      expectError(await put(slug, { skin: 'dark', name: 'Not applied' }, 'news', editor), 403, needsTheme)
      // The theme is set by someone allowed; the editor may send it unchanged, not clear it.
      expectInfo(await put(slug, { theme: 'cinema' }), 201, {
        slug,
        name: 'Edited',
        type: 'web',
        online: 'false',
        theming: { theme: 'cinema', skin: '' },
      })
      expectInfo(await put(slug, { theme: 'cinema', skin: '', name: 'Again' }, 'news', editor), 201, {
        slug,
        name: 'Again',
        type: 'web',
        online: 'false',
        theming: { theme: 'cinema', skin: '' },
      })
      expectError(await put(slug, { theme: '' }, 'news', editor), 403, needsTheme)
      // Theming is checked (412) before the permission (403).
      expectError(await post({ name: 'Api', type: 'api', theme: 'x' }, 'news', editor), 412, INVALID, {
        theme: `only ${THEMED} channels have a theme`,
      })
      const res = await editor.delete(`/media/news/channel/${slug}`)
      expect(res.status).toBe(204)
    })
  })
})
