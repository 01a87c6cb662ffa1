import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import { type DigestClient, parseChallenge, rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, text } from '../../helpers/xml.js'
import { keysOf } from '../identity/permissions.fixtures.js'
import {
  DECLARATION,
  INVALID,
  NEEDS_ROLE,
  accessObjects,
  createMedia,
  createRole,
  createStream,
  expectError,
  grant,
  mediaForm,
  rootMedia,
  slugsIn,
  startPublishing,
  viewer,
  xmlOf,
} from './publishing.fixtures.js'

interface Expected {
  slug: string
  name: string
  domain: string
  description?: string
  contactEmail?: string
  maxStreams?: number
  platform?: string
}

const LIST_KEYS = ['@href', 'contact_email', 'description', 'domain', 'domain_name', 'max_streams', 'name', 'slug']
const INFO_KEYS = [...LIST_KEYS, 'accesses', 'channels', 'platform', 'streams'].sort()
const HOST_NAME = 'must be a host name, such as videos.example.org (no scheme, port or path)'

let app: TestApp

function expectFields(node: XmlObject, e: Expected): void {
  expect(node['@href']).toBe(`${app.url}/media/${e.slug}`)
  expect(text(node.slug)).toBe(e.slug)
  expect(text(node.name)).toBe(e.name)
  expect(text(node.domain_name)).toBe(e.domain)
  expect(text(node.domain)).toBe(e.domain)
  expect(text(node.description)).toBe(e.description ?? '')
  expect(text(node.contact_email)).toBe(e.contactEmail ?? 'webmaster@example.org')
  expect(text(node.max_streams)).toBe(String(e.maxStreams ?? 0))
}

/** Media info (info, create and update answers): every field and the four links, nothing else. */
function expectInfo(res: Parameters<typeof xmlOf>[0], status: number, e: Expected): void {
  const doc = xmlOf(res, status)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['media'])
  const node = doc.media as XmlObject
  expect(keysOf(node)).toEqual(INFO_KEYS)
  expectFields(node, e)
  expect(node.platform).toEqual({ '@href': `${app.url}/platform/${e.platform ?? 'default'}` })
  expect(node.streams).toEqual({ '@href': `${app.url}/media/${e.slug}/streams` })
  expect(node.channels).toEqual({ '@href': `${app.url}/media/${e.slug}/channels` })
  expect(node.accesses).toEqual({ '@href': `${app.url}/media/${e.slug}/accesses` })
}

const post = (client: DigestClient, form: Record<string, string | number>, platform = 'default') =>
  client.post(`/platform/${platform}/medias`, { form })
const medias = (client: DigestClient, platform = 'default', headers: Record<string, string> = {}) =>
  client.get(`/platform/${platform}/medias`, { headers })

beforeAll(async () => {
  app = await startPublishing()
})
afterAll(async () => app?.close())

describe('media API', () => {
  it('starts with an empty list and a root holding only the files link', async () => {
    const res = await medias(app.client)
    expect(res.body).toBe(`${DECLARATION}<medias href="${app.url}/platform/default/medias"/>`)
    expect(res.headers['content-range']).toBe('entities */0')
    expect(res.headers['accept-ranges']).toBe('entities')
    const root = xmlOf(await app.client.get('/'), 200)
    expect(root.services).toEqual({ '@href': `${app.url}/`, files: { '@href': `${app.url}/files` } })
  })

  it('POST answers 201 with every field (domain_name and domain) and the platform, streams, channels, accesses links', async () => {
    const res = await post(app.client, {
      name: 'News',
      domain_name: 'News.Example.ORG',
      domain: 'news.example.org',
      description: '<p>Our <b>news</b></p>',
      contact_email: 'desk@example.org',
      max_streams: 12,
    })
    const expected = {
      slug: 'news',
      name: 'News',
      domain: 'news.example.org',
      description: '<p>Our <b>news</b></p>',
      contactEmail: 'desk@example.org',
      maxStreams: 12,
    }
    expectInfo(res, 201, expected)
    const base = app.url
    expect(res.body).toBe(
      `${DECLARATION}<media href="${base}/media/news"><slug><![CDATA[news]]></slug><name><![CDATA[News]]></name>` +
        `<domain_name><![CDATA[news.example.org]]></domain_name><domain><![CDATA[news.example.org]]></domain>` +
        `<description><![CDATA[<p>Our <b>news</b></p>]]></description><contact_email><![CDATA[desk@example.org]]></contact_email>` +
        `<max_streams>12</max_streams><platform href="${base}/platform/default"/><streams href="${base}/media/news/streams"/>` +
        `<channels href="${base}/media/news/channels"/><accesses href="${base}/media/news/accesses"/></media>`,
    )
    expectInfo(await app.client.get('/media/news'), 200, expected)
  })

  it('accepts domain_name alone or domain alone, stores it lowercase; description and max_streams are optional', async () => {
    const byName = await post(app.client, {
      name: 'Sport',
      domain_name: 'SPORT.Example.org',
      contact_email: 'sport@example.org',
    })
    expectInfo(byName, 201, {
      slug: 'sport',
      name: 'Sport',
      domain: 'sport.example.org',
      contactEmail: 'sport@example.org',
    })
    const byDomain = await post(app.client, { name: 'Weather', domain: 'Weather.example.org', contact_email: 'w@x.io' })
    expectInfo(byDomain, 201, {
      slug: 'weather',
      name: 'Weather',
      domain: 'weather.example.org',
      contactEmail: 'w@x.io',
    })
    // Boundaries: a 63-character label, a single label, digits and inner hyphens; max_streams 0 is unlimited.
    const label63 = 'a'.repeat(63)
    expect(await createMedia(app.client, mediaForm('Long label', `${label63}.example.org`, { max_streams: 0 }))).toBe(
      'long-label',
    )
    expect(await createMedia(app.client, mediaForm('Intranet', 'intranet'))).toBe('intranet')
    expect(await createMedia(app.client, mediaForm('Numbers', '3d-tv.x-1.example.org'))).toBe('numbers')
    expect(text(xmlOf(await app.client.get('/media/long-label'), 200).media.domain)).toBe(`${label63}.example.org`)
  })

  it('lists the media of the platform with the list fields only (no foreign links), oldest first, with Range', async () => {
    const res = await medias(app.client)
    const doc = xmlOf(res, 200)
    expect(doc.medias['@href']).toBe(`${app.url}/platform/default/medias`)
    const slugs = slugsIn(res, 'medias', 'media')
    expect(slugs).toEqual(['news', 'sport', 'weather', 'long-label', 'intranet', 'numbers'])
    expect(res.headers['content-range']).toBe('entities 0-5/6')
    for (const entry of doc.medias.media as XmlObject[]) expect(keysOf(entry)).toEqual(LIST_KEYS)
    expectFields(doc.medias.media[0], {
      slug: 'news',
      name: 'News',
      domain: 'news.example.org',
      description: '<p>Our <b>news</b></p>',
      contactEmail: 'desk@example.org',
      maxStreams: 12,
    })
    // The list names the host `domain` first (the spec's list name), then `domain_name`.
    expect(res.body).toContain(
      '<name><![CDATA[News]]></name><domain><![CDATA[news.example.org]]></domain><domain_name><![CDATA[news.example.org]]></domain_name>',
    )

    const page = await medias(app.client, 'default', { range: 'entities=1-2' })
    expect(slugsIn(page, 'medias', 'media')).toEqual(['sport', 'weather'])
    expect(page.headers['content-range']).toBe('entities 1-2/6')
    const tail = await medias(app.client, 'default', { range: 'entities=4-' })
    expect(slugsIn(tail, 'medias', 'media')).toEqual(['intranet', 'numbers'])
    expect(tail.headers['content-range']).toBe('entities 4-5/6')
    const past = await medias(app.client, 'default', { range: 'entities=6-9' })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe('entities */6')
    expect((await medias(app.client, 'default', { range: 'items=0-1' })).status).toBe(416)
  })

  it("lists only the platform's own media; the other platform has its own list", async () => {
    const other = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Listing', max_users: 0, max_space: 0 } }), 201)
        .platform.slug,
    )
    expect(slugsIn(await medias(app.client, other), 'medias', 'media')).toEqual([])
    const slug = await createMedia(app.client, mediaForm('News', 'news.listing.example.org'), other)
    expect(slug).toBe('news-2')
    expectInfo(await app.client.get('/media/news-2'), 200, {
      slug: 'news-2',
      name: 'News',
      domain: 'news.listing.example.org',
      platform: other,
    })
    expect(slugsIn(await medias(app.client, other), 'medias', 'media')).toEqual(['news-2'])
    expect(slugsIn(await medias(app.client), 'medias', 'media')).not.toContain('news-2')
    expect((await medias(app.client, 'no-such-platform')).status).toBe(404)
  })

  it('PUT is a partial update answering 201; an empty description clears it; the slug never changes', async () => {
    await createMedia(
      app.client,
      mediaForm('Editable', 'editable.example.org', { description: 'first', max_streams: 4 }),
    )
    const renamed = await app.client.put('/media/editable', { form: { name: 'Edited', slug: 'ignored' } })
    const expected = {
      slug: 'editable',
      name: 'Edited',
      domain: 'editable.example.org',
      description: 'first',
      maxStreams: 4,
    }
    expectInfo(renamed, 201, expected)
    const changed = await app.client.put('/media/editable', {
      form: { description: '', domain_name: 'EDITED.example.org', contact_email: 'new@example.org', max_streams: 9 },
    })
    const after = {
      ...expected,
      description: '',
      domain: 'edited.example.org',
      contactEmail: 'new@example.org',
      maxStreams: 9,
    }
    expectInfo(changed, 201, after)
    expectInfo(await app.client.get('/media/editable'), 200, after)
    // max_streams sent empty goes back to 0 (unlimited); the same domain again is no clash with itself.
    expectInfo(
      await app.client.put('/media/editable', { form: { max_streams: '', domain: 'edited.example.org' } }),
      201,
      {
        ...after,
        maxStreams: 0,
      },
    )
    expectInfo(await app.client.put('/media/editable', { form: {} }), 201, { ...after, maxStreams: 0 })
    expectError(await app.client.get('/media/edited'), 404, 'No media "edited".')
  })

  it('PUT refuses emptying a required field (412) and changes nothing', async () => {
    await createMedia(app.client, mediaForm('Strict', 'strict.example.org'))
    expectError(await app.client.put('/media/strict', { form: { name: '', description: 'kept?' } }), 412, INVALID, {
      name: 'cannot be empty',
    })
    expectError(await app.client.put('/media/strict', { form: { contact_email: ' ' } }), 412, INVALID, {
      contact_email: 'cannot be empty',
    })
    expectError(await app.client.put('/media/strict', { form: { domain_name: '' } }), 412, INVALID, {
      domain_name: 'cannot be empty',
    })
    expectError(await app.client.put('/media/strict', { form: { domain: '' } }), 412, INVALID, {
      domain: 'cannot be empty',
    })
    expectInfo(await app.client.get('/media/strict'), 200, {
      slug: 'strict',
      name: 'Strict',
      domain: 'strict.example.org',
    })
  })

  it('DELETE answers 204, then the media is gone (404)', async () => {
    await createMedia(app.client, mediaForm('Short lived', 'short.example.org'))
    const res = await app.client.delete('/media/short-lived')
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expect(res.headers['x-api-version']).toBe('2.14.3')
    expectError(await app.client.get('/media/short-lived'), 404, 'No media "short-lived".')
    expectError(await app.client.delete('/media/short-lived'), 404, 'No media "short-lived".')
    expectError(await app.client.put('/media/short-lived', { form: { name: 'x' } }), 404, 'No media "short-lived".')
    // Its domain is free again.
    expect(await createMedia(app.client, mediaForm('Short lived', 'short.example.org'))).toBe('short-lived')
  })

  it('the root lists one media link per media, and the files link', async () => {
    const res = await app.client.get('/')
    const hrefs = rootMedia(res)
    expect(hrefs).toContain(`${app.url}/media/news`)
    expect(hrefs).toContain(`${app.url}/media/sport`)
    expect(hrefs).toContain(`${app.url}/media/news-2`)
    expect(new Set(hrefs).size).toBe(hrefs.length)
    expect(xmlOf(res, 200).services.files).toEqual({ '@href': `${app.url}/files` })
    expect(res.body).toContain(`<media href="${app.url}/media/news"/>`)
  })
})

describe('media validation (412)', () => {
  const invalid = async (form: Record<string, string | number>, fields: Record<string, string>) =>
    expectError(await post(app.client, form), 412, INVALID, fields)
  const valid = mediaForm('Valid', 'valid.example.org')

  it('name, domain and contact_email are required', async () => {
    await invalid(
      {},
      {
        name: 'is required',
        domain_name: 'is required (a host name, such as videos.example.org)',
        contact_email: 'is required',
      },
    )
    await invalid(
      { name: ' ', domain_name: '', domain: '', contact_email: '' },
      {
        name: 'is required',
        domain_name: 'is required (a host name, such as videos.example.org)',
        contact_email: 'is required',
      },
    )
  })

  it('contact_email must be an e-mail address', async () => {
    for (const email of ['not-an-email', 'a@b', 'two@@example.org', 'spa ce@example.org']) {
      await invalid({ ...valid, contact_email: email }, { contact_email: 'must be a valid e-mail address' })
    }
  })

  it('the domain must be a host name: no scheme, port, path, bad hyphen, empty label, long label or markup', async () => {
    const bad = ['http://x.org', 'x.org:80', 'x.org/path', '-x.org', 'x-.org', 'a..b', `${'a'.repeat(64)}.org`, ']]>']
    for (const domain of bad) {
      await invalid({ ...valid, domain_name: domain, domain }, { domain_name: HOST_NAME })
      await invalid({ name: 'Valid', domain, contact_email: 'a@example.org' }, { domain: HOST_NAME })
    }
    await invalid(
      { ...valid, domain_name: 'x'.repeat(256), domain: 'x'.repeat(256) },
      {
        domain_name: 'must be at most 255 characters',
        domain: 'must be at most 255 characters',
      },
    )
    expect((await medias(app.client)).body).not.toContain('x.org')
  })

  it('domain and domain_name must agree (case aside)', async () => {
    await invalid(
      { ...valid, domain_name: 'one.example.org', domain: 'two.example.org' },
      { domain: 'differs from domain_name: send one host name' },
    )
    expect(
      await createMedia(app.client, { ...valid, domain_name: 'Same.example.org', domain: 'same.EXAMPLE.org' }),
    ).toBe('valid')
  })

  it('a domain is used by one media only, whatever the case and the platform, also on PUT', async () => {
    const taken = { domain_name: 'is already the domain of another media' }
    await invalid(mediaForm('Again', 'news.example.org'), taken)
    await invalid(mediaForm('Again', 'NEWS.example.org'), taken)
    expectError(await post(app.client, mediaForm('Again', 'news.example.org'), 'listing'), 412, INVALID, taken)
    expectError(
      await app.client.put('/media/sport', { form: { domain_name: 'News.Example.org' } }),
      412,
      INVALID,
      taken,
    )
    expectError(await app.client.put('/media/sport', { form: { domain: 'news.example.org' } }), 412, INVALID, taken)
    expect(text(xmlOf(await app.client.get('/media/sport'), 200).media.domain)).toBe('sport.example.org')
  })

  it('concurrent requests for one domain: exactly one wins, on create and on update', async () => {
    const answers = await Promise.all(
      ['Race 1', 'Race 2', 'Race 3'].map((name) => post(app.client, mediaForm(name, 'race.example.org'))),
    )
    expect(answers.map((res) => res.status).sort()).toEqual([201, 412, 412])
    const movers: string[] = []
    for (const n of [1, 2, 3, 4, 5])
      movers.push(await createMedia(app.client, mediaForm(`Mover ${n}`, `mover${n}.example.org`)))
    const moves = await Promise.all(
      movers.map((slug) => app.client.put(`/media/${slug}`, { form: { domain: 'moved.example.org' } })),
    )
    expect(moves.map((res) => res.status).sort(), moves.map((res) => res.body).join('\n')).toEqual([
      201, 412, 412, 412, 412,
    ])
    for (const res of moves.filter((r) => r.status === 412)) {
      expectError(res, 412, INVALID, { domain_name: 'is already the domain of another media' })
    }
  })

  it('max_streams is a whole number, 0 or more', async () => {
    await invalid({ ...valid, max_streams: -1 }, { max_streams: 'must be between 0 and 2147483647' })
    await invalid({ ...valid, max_streams: 'abc' }, { max_streams: 'must be a whole number' })
    await invalid({ ...valid, max_streams: '2.5' }, { max_streams: 'must be a whole number' })
    await invalid({ ...valid, max_streams: 2147483648 }, { max_streams: 'must be between 0 and 2147483647' })
    expectError(await app.client.put('/media/sport', { form: { max_streams: -1 } }), 412, INVALID, {
      max_streams: 'must be between 0 and 2147483647',
    })
  })

  it('name: at most 255 characters (a 255-character name is kept whole; the slug is cut at 64)', async () => {
    await invalid({ ...valid, name: 'n'.repeat(256) }, { name: 'must be at most 255 characters' })
    const res = await post(app.client, mediaForm('é'.repeat(255), 'long-name.example.org'))
    const media = xmlOf(res, 201).media
    expect(text(media.name)).toBe('é'.repeat(255))
    expect(text(media.slug)).toBe('e'.repeat(64))
    expectError(await app.client.put('/media/sport', { form: { name: 'n'.repeat(256) } }), 412, INVALID, {
      name: 'must be at most 255 characters',
    })
  })

  it('lists every failing field in one answer', async () => {
    await invalid(
      { name: 'n'.repeat(256), domain_name: 'http://x.org', contact_email: 'nope', max_streams: 'many' },
      {
        name: 'must be at most 255 characters',
        domain_name: HOST_NAME,
        contact_email: 'must be a valid e-mail address',
        max_streams: 'must be a whole number',
      },
    )
  })

  it('text with "]]>" and markup round-trips', async () => {
    const name = 'Tricky ]]> <name> & "quotes"'
    const res = await post(app.client, mediaForm(name, 'tricky.example.org', { description: 'a]]>b' }))
    const media = xmlOf(res, 201).media
    expect(text(media.name)).toBe(name)
    expect(text(media.description)).toBe('a]]>b')
  })
})

describe('media authorization', () => {
  let vera: DigestClient
  let reed: DigestClient
  let ed: DigestClient
  let cora: DigestClient
  let outsider: DigestClient
  let other: string

  beforeAll(async () => {
    const reader = await createRole(app, 'Media reader', ['media.view'])
    const editor = await createRole(app, 'Media editor', ['media.view', 'media.edit'])
    const creator = await createRole(app, 'Media creator', ['platform.view', 'media.view', 'media.create'])
    vera = await viewer(app, 'vera')
    reed = await viewer(app, 'reed')
    ed = await viewer(app, 'ed')
    cora = await viewer(app, 'cora')
    await grant(app, 'reed', 'media', 'sport', reader)
    await grant(app, 'ed', 'media', 'weather', editor)
    await grant(app, 'cora', 'platform', 'default', creator)
    other = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Tenant', max_users: 0, max_space: 0 } }), 201).platform
        .slug,
    )
    // The default Administrator profile of the other platform: administrator there, nothing here.
    outsider = await app.createUser({ username: 'outsider', platform: other })
  })

  it('a Viewer without accesses sees the platform, an empty media list, no media link on the root, 404 on a media', async () => {
    xmlOf(await vera.get('/platform/default'), 200)
    const res = await medias(vera)
    expect(res.body).toBe(`${DECLARATION}<medias href="${app.url}/platform/default/medias"/>`)
    expect(res.headers['content-range']).toBe('entities */0')
    expect(rootMedia(await vera.get('/'))).toEqual([])
    expectError(await vera.get('/media/news'), 404, 'No media "news".')
    expectError(await vera.put('/media/news', { form: { name: 'x' } }), 404, 'No media "news".')
    expectError(await vera.delete('/media/news'), 404, 'No media "news".')
    expectError(await post(vera, mediaForm('Mine', 'mine.example.org')), 403, NEEDS_ROLE('media.create'))
  })

  it('media.view on one media through an access: exactly that one in the list, on the root and by slug', async () => {
    expect(slugsIn(await medias(reed), 'medias', 'media')).toEqual(['sport'])
    expect((await medias(reed)).headers['content-range']).toBe('entities 0-0/1')
    expect(rootMedia(await reed.get('/'))).toEqual([`${app.url}/media/sport`])
    expectInfo(await reed.get('/media/sport'), 200, {
      slug: 'sport',
      name: 'Sport',
      domain: 'sport.example.org',
      contactEmail: 'sport@example.org',
    })
    expectError(await reed.get('/media/news'), 404, 'No media "news".')
  })

  it('without media.edit, PUT answers 403 and changes nothing; without media.delete, DELETE answers 403', async () => {
    expectError(await reed.put('/media/sport', { form: { name: 'Mine now' } }), 403, NEEDS_ROLE('media.edit'))
    expectError(await reed.delete('/media/sport'), 403, NEEDS_ROLE('media.delete'))
    expect(text(xmlOf(await app.client.get('/media/sport'), 200).media.name)).toBe('Sport')
  })

  it('with media.edit on a media: PUT 201 there, 404 on the others', async () => {
    const res = await ed.put('/media/weather', { form: { description: 'Rain or shine' } })
    expect(text(xmlOf(res, 201).media.description)).toBe('Rain or shine')
    expectError(await ed.delete('/media/weather'), 403, NEEDS_ROLE('media.delete'))
    expectError(await ed.put('/media/sport', { form: { name: 'x' } }), 404, 'No media "sport".')
  })

  it('POST needs media.create on the platform', async () => {
    expectError(await post(reed, mediaForm('Mine', 'mine.example.org')), 403, NEEDS_ROLE('media.create'))
    expectError(await post(ed, mediaForm('Mine', 'mine.example.org')), 403, NEEDS_ROLE('media.create'))
    const slug = await createMedia(cora, mediaForm("Cora's", 'cora.example.org'))
    expect(slug).toBe('cora-s')
    // media.view on the platform: cora sees every media of the platform.
    expect(slugsIn(await medias(cora), 'medias', 'media')).toContain('news')
    expect(rootMedia(await cora.get('/'))).toContain(`${app.url}/media/cora-s`)
  })

  it('the installation administrator sees every media of every platform on the root', async () => {
    const hrefs = rootMedia(await app.client.get('/'))
    const defaults = slugsIn(await medias(app.client), 'medias', 'media')
    for (const slug of defaults) expect(hrefs).toContain(`${app.url}/media/${slug}`)
    expect(hrefs).toContain(`${app.url}/media/news-2`)
  })

  it('another tenant: 404 on the platform and on its media, even for that tenant’s administrator', async () => {
    expect(rootMedia(await outsider.get('/'))).toEqual([])
    expectError(await medias(outsider), 404, 'No platform "default".')
    expectError(await outsider.get('/media/news'), 404, 'No media "news".')
    expectError(await outsider.put('/media/news', { form: { name: 'x' } }), 404, 'No media "news".')
    expectError(await outsider.delete('/media/news'), 404, 'No media "news".')
    expectError(await post(outsider, mediaForm('Theirs', 'theirs.example.org')), 404, 'No platform "default".')
    // Their own platform is theirs: a platform administrator manages its media.
    expect(await createMedia(outsider, mediaForm('Theirs', 'theirs.example.org'), other)).toBe('theirs')
    expect(rootMedia(await outsider.get('/'))).toEqual([`${app.url}/media/theirs`])
    expectError(await reed.get('/media/theirs'), 404, 'No media "theirs".')
  })

  it('unauthenticated requests answer 401 with a Digest challenge', async () => {
    for (const [method, path] of [
      ['GET', '/platform/default/medias'],
      ['POST', '/platform/default/medias'],
      ['GET', '/media/news'],
      ['PUT', '/media/news'],
      ['DELETE', '/media/news'],
      ['GET', '/media/news/accesses'],
    ] as const) {
      const res = await rawRequest(`${app.url}${path}`, method)
      expect(res.status, `${method} ${path}`).toBe(401)
      expect(parseChallenge(String(res.headers['www-authenticate'])).qop).toBe('auth')
    }
    expect(text(xmlOf(await app.client.get('/media/news'), 200).media.name)).toBe('News')
  })

  it('GET /media/<slug>/accesses lists the accesses on the media, for who may manage them', async () => {
    const res = await app.client.get('/media/sport/accesses')
    const doc = xmlOf(res, 200)
    expect(doc.accesses['@href']).toBe(`${app.url}/media/sport/accesses`)
    const access = doc.accesses.access as XmlObject
    expect(access.user).toEqual({ '@href': `${app.url}/user/reed` })
    expect(access.media).toEqual({ '@href': `${app.url}/media/sport` })
    expect(access.role).toEqual({ '@href': `${app.url}/role/media-reader` })
    expectError(
      await reed.get('/media/sport/accesses'),
      403,
      'This needs the "user.manage_access" or "group.manage_access" permission of your profile, or "media.manage_access" on the media.',
    )
    expectError(await vera.get('/media/sport/accesses'), 404, 'No media "sport".')
    expectError(await app.client.get('/media/nope/accesses'), 404, 'No media "nope".')
  })
})

describe('media cascades', () => {
  /** How many rows of a table hold one of these slugs (committed data). */
  const rows = (table: string, slugs: string[]) =>
    app.kernel.services.reader.count(
      `select count(*) as n from ${table} where slug in (${slugs.map(() => '?').join(',')})`,
      slugs,
    )

  it('deleting a media deletes its streams, their sub-streams, and the accesses on all of them', async () => {
    const streamRole = await createRole(app, 'Stream keeper', ['stream.view', 'stream.edit'])
    await viewer(app, 'casey')
    const media = await createMedia(app.client, mediaForm('Doomed', 'doomed.example.org'))
    const top = await createStream(app.client, media, 'Doomed top')
    const sub = await createStream(app.client, media, 'Doomed sub', { parent_stream: top })
    const leaf = await createStream(app.client, media, 'Doomed leaf', { parent_stream: sub, visibility: 'hidden' })
    const kept = await createStream(app.client, 'sport', 'Kept stream')
    await grant(app, 'casey', 'media', media, 'media-reader')
    await grant(app, 'casey', 'stream', sub, streamRole)
    await grant(app, 'casey', 'stream', kept, streamRole)
    await grant(app, 'casey', 'media', 'sport', 'media-reader')
    expect(accessObjects(await app.client.get('/user/casey/accesses'))).toEqual([
      ['media', media],
      ['stream', sub],
      ['stream', kept],
      ['media', 'sport'],
    ])

    expect((await app.client.delete(`/media/${media}`)).status).toBe(204)
    for (const slug of [top, sub, leaf])
      expectError(await app.client.get(`/stream/${slug}`), 404, `No stream "${slug}".`)
    expect(await rows('streams', [top, sub, leaf])).toBe(0)
    expect(accessObjects(await app.client.get('/user/casey/accesses'))).toEqual([
      ['stream', kept],
      ['media', 'sport'],
    ])
    expect(
      await app.kernel.services.reader.count(
        "select count(*) as n from accesses where object_kind in ('media', 'stream') and object_id not in (select id from medias) and object_id not in (select id from streams)",
      ),
    ).toBe(0)
    xmlOf(await app.client.get(`/stream/${kept}`), 200)
  })

  it('creating streams in a media being deleted: refused or deleted with it, never an error', async () => {
    for (let round = 0; round < 5; round++) {
      const media = await createMedia(app.client, mediaForm(`Racing ${round}`, `racing${round}.example.org`))
      const parent = await createStream(app.client, media, `Racing parent ${round}`)
      const [top, below, deleted] = await Promise.all([
        app.client.post(`/media/${media}/streams`, { form: { title: `Racing top ${round}`, visibility: 'visible' } }),
        app.client.post(`/media/${media}/streams`, {
          form: { title: `Racing child ${round}`, visibility: 'visible', parent_stream: parent },
        }),
        app.client.delete(`/media/${media}`),
      ])
      expect(deleted.status).toBe(204)
      for (const res of [top, below]) {
        expect([201, 404, 412], res.body).toContain(res.status)
        if (res.status === 201) {
          const slug = text(xmlOf(res, 201).stream.slug)
          expectError(await app.client.get(`/stream/${slug}`), 404, `No stream "${slug}".`)
        }
      }
    }
    expect(await app.kernel.services.reader.count("select count(*) as n from streams where slug like 'racing-%'")).toBe(
      0,
    )
  })

  it('deleting a platform deletes its media and their streams; their domains are free again', async () => {
    const platform = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Closing', max_users: 0, max_space: 0 } }), 201)
        .platform.slug,
    )
    const media = await createMedia(app.client, mediaForm('Closing news', 'closing.example.org'), platform)
    const second = await createMedia(app.client, mediaForm('Closing sport', 'closing-sport.example.org'), platform)
    const top = await createStream(app.client, media, 'Closing top')
    const sub = await createStream(app.client, media, 'Closing sub', { parent_stream: top })
    await app.createUser({ username: 'closer', platform })
    expect((await app.client.delete(`/platform/${platform}`)).status).toBe(204)
    expectError(await app.client.get(`/media/${media}`), 404, `No media "${media}".`)
    expectError(await app.client.get(`/media/${second}`), 404, `No media "${second}".`)
    expectError(await app.client.get(`/stream/${sub}`), 404, `No stream "${sub}".`)
    expect(await rows('medias', [media, second])).toBe(0)
    expect(await rows('streams', [top, sub])).toBe(0)
    expect(rootMedia(await app.client.get('/'))).not.toContain(`${app.url}/media/${media}`)
    expect(await createMedia(app.client, mediaForm('Reopened', 'closing.example.org'))).toBe('reopened')
  })
})
