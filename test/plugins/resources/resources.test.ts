import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestApp, startApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, text } from '../../helpers/xml.js'
import { waitForStatus } from '../encoding/encoding.helpers.js'
import { upload } from '../files/files.helpers.js'
import {
  INFO_KEYS,
  INVALID,
  LIST_KEYS,
  NO_RESOURCE,
  NO_STREAM,
  type Place,
  entriesOf,
  expectError,
  listedSlugs,
  makePlace,
  createStream,
  publish,
  published,
  resourceOf,
  uploadDocument,
  xmlOf,
} from './resources.helpers.js'

/** What an ISO 8601 date-time of an answer looks like: UTC, milliseconds, an explicit offset. */
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/

/** Checks that a date-time answered lies between two instants (server and test share the clock). */
function expectBetween(value: string, before: number, after: number): void {
  expect(value).toMatch(ISO)
  const at = Date.parse(value)
  expect(at).toBeGreaterThanOrEqual(before)
  expect(at).toBeLessThanOrEqual(after)
}

const NOT_YOURS = (slug: string) => `you have no file "${slug}" (only your own files can be published)`

describe('resources API: publish, read, list, update, delete', () => {
  let app: TestApp
  let admin: DigestClient
  let bob: DigestClient
  let place: Place
  /** Documents of the administrator (nothing to encode: they finish at once). */
  let paper: string
  let slides: string

  beforeAll(async () => {
    app = await startApp()
    admin = app.client
    bob = await app.createUser({ username: 'bob' })
    place = await makePlace(admin, 'Lectures')
    paper = await uploadDocument(admin, 'paper.pdf')
    slides = await uploadDocument(admin, 'slides.pdf')
  })
  afterAll(async () => app?.close())

  /** Checks every element of a resource info answer for a document (no duration, thumbnail nor flavors). */
  function expectDocumentResource(node: XmlObject, expected: Record<string, string>): void {
    const slug = expected.slug!
    expect(Object.keys(node).sort()).toEqual(INFO_KEYS)
    expect(node['@href']).toBe(`${app.url}/resource/${slug}`)
    expect(text(node.slug)).toBe(slug)
    expect(text(node.title)).toBe(expected.title)
    expect(text(node.subtitle)).toBe(expected.subtitle ?? '')
    expect(text(node.sub_title)).toBe(expected.subtitle ?? '')
    expect(text(node.description)).toBe(expected.description ?? '')
    expect(text(node.published_at)).toBe(expected.published_at)
    expect(text(node.visibility)).toBe(expected.visibility)
    expect(text(node.duration)).toBe('')
    expect(text(node.views)).toBe('0')
    expect(text(node.thumbnail)).toBe('')
    expect(node.file).toEqual({ '@href': `${app.url}/file/${expected.file}` })
    expect(node.stream).toEqual({ '@href': `${app.url}/stream/${expected.stream ?? place.stream}` })
    expect(node.accesses).toEqual({ '@href': `${app.url}/resource/${slug}/accesses` })
    expect(node.metadata).toBe('')
    expect(node.subtitles).toBe('')
    // A document has no renditions: the web channel offers no flavor, but a player (web and widget channels).
    expect(node.flavors).toBe('')
    expect(node.players).toEqual({ player: { '@name': 'default', '#text': `${app.url}/player/${slug}` } })
    expect(node.widgets).toEqual({ '@href': `${app.url}/resource/${slug}/widgets` })
  }

  it('POST /stream/<slug>/resources publishes a file: 201 with every field, slug from the title', async () => {
    const res = await publish(admin, place.stream, {
      file: paper,
      title: 'Économie & société: cours 1',
      subtitle: 'Introduction',
      description: '<p>First <b>lecture</b></p>',
      published_at: '2015-11-09T14:33:00+01:00',
      visibility: 'hidden',
    })
    const node = resourceOf(res, 201)
    expectDocumentResource(node, {
      slug: 'economie-societe-cours-1',
      title: 'Économie & société: cours 1',
      subtitle: 'Introduction',
      description: '<p>First <b>lecture</b></p>',
      published_at: '2015-11-09T13:33:00.000+00:00',
      visibility: 'hidden',
      file: paper,
    })
    // Strings in CDATA, numbers plain, empty optional values as empty elements; in the order of the real answers.
    expect(res.body).toContain('<title><![CDATA[Économie & société: cours 1]]></title>')
    expect(res.body).toContain('<duration/><views>0</views>')
    expect(res.body).toMatch(
      /<slug>.*<\/slug><title>.*<\/title><subtitle>.*<\/subtitle><sub_title>.*<\/sub_title><description>.*<\/description><published_at>.*<\/published_at><visibility>.*<\/visibility><duration\/><views>0<\/views><thumbnail>.*<\/thumbnail><file [^>]*\/><stream [^>]*\/><metadata\/><subtitles\/><flavors\/><accesses [^>]*\/><players>.*<\/players><widgets [^>]*\/>/,
    )
  })

  it('GET /resource/<slug> answers the same document as the creation', async () => {
    const slug = await published(admin, place.stream, { file: paper, title: 'Same twice', visibility: 'draft' })
    const info = await admin.get(`/resource/${slug}`)
    xmlOf(info, 200)
    const again = await admin.get(`/resource/${slug}`)
    expect(again.body).toBe(info.body)
    expectDocumentResource(resourceOf(info, 200), {
      slug: 'same-twice',
      title: 'Same twice',
      published_at: text(resourceOf(info, 200).published_at),
      visibility: 'draft',
      file: paper,
    })
  })

  it('sub_title is accepted as input; published_at as Unix seconds; without published_at, now', async () => {
    const unix = resourceOf(
      await publish(admin, place.stream, {
        file: paper,
        title: 'Unix time',
        sub_title: 'Named as in lists',
        published_at: '1447075980',
        visibility: 'visible',
      }),
      201,
    )
    expect([text(unix.subtitle), text(unix.sub_title)]).toEqual(['Named as in lists', 'Named as in lists'])
    expect(text(unix.published_at)).toBe('2015-11-09T13:33:00.000+00:00')

    let before = Date.now()
    const now = resourceOf(
      await publish(admin, place.stream, { file: paper, title: 'Now', visibility: 'visible' }),
      201,
    )
    expectBetween(text(now.published_at), before, Date.now())
    // Sent empty: the default as well.
    before = Date.now()
    const empty = resourceOf(
      await publish(admin, place.stream, { file: paper, title: 'Empty date', published_at: '', visibility: 'visible' }),
      201,
    )
    expectBetween(text(empty.published_at), before, Date.now())
  })

  it('the same title twice gets -2: slugs are unique and never change on rename', async () => {
    const stream = await createStream(admin, place.media, 'Slugs')
    expect(await published(admin, stream, { file: paper, title: 'Repeated', visibility: 'visible' })).toBe('repeated')
    expect(await published(admin, stream, { file: paper, title: 'Repeated', visibility: 'visible' })).toBe('repeated-2')
    const renamed = resourceOf(await admin.put('/resource/repeated', { form: { title: 'Another name' } }), 200)
    expect([text(renamed.slug), text(renamed.title)]).toEqual(['repeated', 'Another name'])
  })

  it('GET /stream/<slug>/resources: entries as the real answers show them (flavors, subtitles, metadata, file and stream links), no accesses', async () => {
    const stream = await createStream(admin, place.media, 'Listed')
    const first = await published(admin, stream, {
      file: paper,
      title: 'First',
      subtitle: 'One',
      description: 'About one',
      published_at: '2020-01-02T03:04:05Z',
      visibility: 'visible',
    })
    const second = await published(admin, stream, { file: slides, title: 'Second', visibility: 'hidden' })
    const res = await admin.get(`/stream/${stream}/resources`)
    expect(xmlOf(res, 200).resources['@href']).toBe(`${app.url}/stream/${stream}/resources`)
    expect(res.headers['accept-ranges']).toBe('entities')
    expect(res.headers['content-range']).toBe('entities 0-1/2')
    const entries = entriesOf(res)
    expect(entries.map((node) => text(node.slug))).toEqual([first, second])
    const [one, two] = entries as [XmlObject, XmlObject]
    for (const node of entries) expect(Object.keys(node).sort()).toEqual(LIST_KEYS)
    expect(one['@href']).toBe(`${app.url}/resource/${first}`)
    expect([text(one.title), text(one.sub_title), text(one.subtitle), text(one.description)]).toEqual([
      'First',
      'One',
      'One',
      'About one',
    ])
    expect([text(one.published_at), text(one.visibility), text(one.views)]).toEqual([
      '2020-01-02T03:04:05.000+00:00',
      'visible',
      '0',
    ])
    expect(one.file).toEqual({ '@href': `${app.url}/file/${paper}` })
    expect(one.stream).toEqual({ '@href': `${app.url}/stream/${stream}` })
    expect(two.file).toEqual({ '@href': `${app.url}/file/${slides}` })
    expect(text(two.visibility)).toBe('hidden')
    // Lists name `sub_title` first (the spec's list name), info `subtitle` first.
    expect(res.body).toContain('<sub_title><![CDATA[One]]></sub_title><subtitle><![CDATA[One]]></subtitle>')
  })

  it('Range pages the list (Content-Range), 416 past the end or malformed', async () => {
    const stream = await createStream(admin, place.media, 'Paged')
    const slugs: string[] = []
    for (const title of ['Page A', 'Page B', 'Page C']) {
      slugs.push(await published(admin, stream, { file: paper, title, visibility: 'visible' }))
    }
    const page = async (range: string) => {
      const res = await admin.get(`/stream/${stream}/resources`, { headers: { range } })
      return { res, slugs: res.status === 200 ? entriesOf(res).map((node) => text(node.slug)) : [] }
    }
    const firstTwo = await page('entities=0-1')
    expect([firstTwo.res.headers['content-range'], firstTwo.slugs]).toEqual(['entities 0-1/3', slugs.slice(0, 2)])
    const rest = await page('entities=2-')
    expect([rest.res.headers['content-range'], rest.slugs]).toEqual(['entities 2-2/3', slugs.slice(2)])
    const beyond = await page('entities=1-99')
    expect([beyond.res.headers['content-range'], beyond.slugs]).toEqual(['entities 1-2/3', slugs.slice(1)])
    const after = await page('entities=3-5')
    expect([after.res.status, after.res.headers['content-range'], after.slugs]).toEqual([200, 'entities */3', []])
    for (const range of ['items=0-1', 'entities=2-1']) {
      const { res } = await page(range)
      expect([range, res.status, res.headers['content-range']]).toEqual([range, 416, 'entities */3'])
    }
    // An empty stream: an empty list, 0 of 0.
    const empty = await admin.get(`/stream/${await createStream(admin, place.media, 'Empty')}/resources`)
    expect(entriesOf(empty)).toEqual([])
  })

  it('PUT /resource/<slug> is a partial update: 200 with the resource; only the fields sent change', async () => {
    const slug = await published(admin, place.stream, {
      file: paper,
      title: 'Before',
      subtitle: 'Kept',
      description: 'Kept too',
      published_at: '2019-05-01T10:00:00Z',
      visibility: 'draft',
    })
    const title = resourceOf(await admin.put(`/resource/${slug}`, { form: { title: 'After' } }), 200)
    expect([text(title.title), text(title.subtitle), text(title.description), text(title.visibility)]).toEqual([
      'After',
      'Kept',
      'Kept too',
      'draft',
    ])
    expect(text(title.published_at)).toBe('2019-05-01T10:00:00.000+00:00')
    const all = resourceOf(
      await admin.put(`/resource/${slug}`, {
        form: {
          sub_title: 'Changed',
          description: 'New text',
          published_at: '1700000000',
          visibility: 'visible',
          file: slides,
        },
      }),
      200,
    )
    expect(Object.keys(all).sort()).toEqual(INFO_KEYS)
    expect([text(all.slug), text(all.title), text(all.subtitle), text(all.sub_title), text(all.description)]).toEqual([
      slug,
      'After',
      'Changed',
      'Changed',
      'New text',
    ])
    expect([text(all.published_at), text(all.visibility)]).toEqual(['2023-11-14T22:13:20.000+00:00', 'visible'])
    expect(all.file).toEqual({ '@href': `${app.url}/file/${slides}` })
    // The change is stored: info shows it.
    expect(resourceOf(await admin.get(`/resource/${slug}`), 200).file).toEqual({ '@href': `${app.url}/file/${slides}` })
    // Optional fields sent empty are cleared.
    const cleared = resourceOf(await admin.put(`/resource/${slug}`, { form: { subtitle: '', description: '' } }), 200)
    expect([text(cleared.subtitle), text(cleared.sub_title), text(cleared.description)]).toEqual(['', '', ''])
  })

  it('PUT: published_at sent empty goes back to now (a resource always has a publication date)', async () => {
    const slug = await published(admin, place.stream, {
      file: paper,
      title: 'Dated',
      published_at: '2001-01-01T00:00:00Z',
      visibility: 'visible',
    })
    const before = Date.now()
    const node = resourceOf(await admin.put(`/resource/${slug}`, { form: { published_at: '' } }), 200)
    expectBetween(text(node.published_at), before, Date.now())
    expect(text(resourceOf(await admin.get(`/resource/${slug}`), 200).published_at)).toBe(text(node.published_at))
  })

  it('PUT: required fields sent empty, bad values, another file that is not publishable: 412, nothing changes', async () => {
    const slug = await published(admin, place.stream, { file: paper, title: 'Stable', visibility: 'visible' })
    const before = (await admin.get(`/resource/${slug}`)).body
    expectError(await admin.put(`/resource/${slug}`, { form: { title: '', description: 'ignored' } }), 412, INVALID, {
      title: 'cannot be empty',
    })
    expectError(await admin.put(`/resource/${slug}`, { form: { visibility: '', file: '' } }), 412, INVALID, {
      file: 'cannot be empty',
      visibility: 'cannot be empty',
    })
    expectError(
      await admin.put(`/resource/${slug}`, {
        form: { visibility: 'public', published_at: 'yesterday', title: 't'.repeat(256) },
      }),
      412,
      INVALID,
      {
        title: 'must be at most 255 characters',
        published_at: 'must be an ISO 8601 date-time or Unix seconds',
        visibility: 'must be one of: visible, hidden, draft',
      },
    )
    const bobs = await uploadDocument(bob, 'bob.pdf')
    expectError(await admin.put(`/resource/${slug}`, { form: { file: bobs, title: 'Not this' } }), 412, INVALID, {
      file: NOT_YOURS(bobs),
    })
    expect((await admin.get(`/resource/${slug}`)).body).toBe(before)
  })

  it('DELETE /resource/<slug>: 204 with no body, then 404 everywhere; the file stays', async () => {
    const slug = await published(admin, place.stream, { file: slides, title: 'Short lived', visibility: 'visible' })
    expect(await listedSlugs(admin, place.stream)).toContain(slug)
    const res = await admin.delete(`/resource/${slug}`)
    expect([res.status, res.body]).toEqual([204, ''])
    expect(res.headers['x-api-version']).toBe('2.14.3')
    expectError(await admin.get(`/resource/${slug}`), 404, NO_RESOURCE(slug))
    expectError(await admin.put(`/resource/${slug}`, { form: { title: 'x' } }), 404, NO_RESOURCE(slug))
    expectError(await admin.delete(`/resource/${slug}`), 404, NO_RESOURCE(slug))
    expectError(await admin.get(`/resource/${slug}/accesses`), 404, NO_RESOURCE(slug))
    expect(await listedSlugs(admin, place.stream)).not.toContain(slug)
    expect((await admin.get(`/file/${slides}`)).status).toBe(200)
  })

  describe('412 on publishing', () => {
    it('missing file, title and visibility: every field named', async () => {
      expectError(await publish(admin, place.stream, {}), 412, INVALID, {
        file: 'is required',
        title: 'is required',
        visibility: 'is required',
      })
      expectError(await publish(admin, place.stream, { file: ' ', title: '  ', visibility: '' }), 412, INVALID, {
        file: 'is required',
        title: 'is required',
        visibility: 'is required',
      })
    })

    it('visibility=public, a 256-character title, published_at=yesterday', async () => {
      expectError(
        await publish(admin, place.stream, { file: paper, title: 'Ok', visibility: 'public' }),
        412,
        INVALID,
        {
          visibility: 'must be one of: visible, hidden, draft',
        },
      )
      expectError(
        await publish(admin, place.stream, { file: paper, title: 'é'.repeat(256), visibility: 'visible' }),
        412,
        INVALID,
        { title: 'must be at most 255 characters' },
      )
      expectError(
        await publish(admin, place.stream, {
          file: paper,
          title: 'Ok',
          visibility: 'visible',
          published_at: 'yesterday',
        }),
        412,
        INVALID,
        { published_at: 'must be an ISO 8601 date-time or Unix seconds' },
      )
      // 255 characters are fine.
      const longest = resourceOf(
        await publish(admin, place.stream, { file: paper, title: 'é'.repeat(255), visibility: 'visible' }),
        201,
      )
      expect(text(longest.title)).toBe('é'.repeat(255))
    })

    it("a file that does not exist and another user's file: the same 412 (files are private)", async () => {
      expectError(
        await publish(admin, place.stream, { file: 'no-such-file', title: 'Ok', visibility: 'visible' }),
        412,
        INVALID,
        {
          file: NOT_YOURS('no-such-file'),
        },
      )
      const bobs = await uploadDocument(bob, 'private.pdf')
      expectError(
        await publish(admin, place.stream, { file: bobs, title: 'Ok', visibility: 'visible' }),
        412,
        INVALID,
        {
          file: NOT_YOURS(bobs),
        },
      )
    })

    it('a file whose encoding failed (text named .mp4): 412 with the reason', async () => {
      const res = await upload(admin, Buffer.from('Only words here.\nNo moving pictures.\n'), { filename: 'movie.mp4' })
      const slug = text(xmlOf(res, 200).file.slug)
      expect((await waitForStatus(admin, slug)).at(-1)!.status).toBe('failed')
      expectError(
        await publish(admin, place.stream, { file: slug, title: 'Broken', visibility: 'visible' }),
        412,
        INVALID,
        {
          file: 'failed its encoding (not a media file the encoder can read: it is corrupt, truncated or in an unsupported format): it cannot be published',
        },
      )
      // Nor can an existing resource be moved onto it.
      const resource = await published(admin, place.stream, { file: paper, title: 'Not moved', visibility: 'visible' })
      expectError(await admin.put(`/resource/${resource}`, { form: { file: slug } }), 412, INVALID, {
        file: 'failed its encoding (not a media file the encoder can read: it is corrupt, truncated or in an unsupported format): it cannot be published',
      })
    })

    it('every failure at once, and nothing stored', async () => {
      const before = await listedSlugs(admin, place.stream)
      expectError(
        await publish(admin, place.stream, {
          file: 'nope',
          title: 't'.repeat(300),
          visibility: 'public',
          published_at: 'yesterday',
        }),
        412,
        INVALID,
        {
          title: 'must be at most 255 characters',
          published_at: 'must be an ISO 8601 date-time or Unix seconds',
          visibility: 'must be one of: visible, hidden, draft',
          file: NOT_YOURS('nope'),
        },
      )
      expect(await listedSlugs(admin, place.stream)).toEqual(before)
    })

    it('an unknown stream: 404', async () => {
      expectError(
        await publish(admin, 'no-such-stream', { file: paper, title: 'Ok', visibility: 'visible' }),
        404,
        NO_STREAM('no-such-stream'),
      )
      expectError(await admin.get('/stream/no-such-stream/resources'), 404, NO_STREAM('no-such-stream'))
    })
  })

  it('an installation administrator publishes their own file into a stream of another platform', async () => {
    const platform = text(
      xmlOf(await admin.post('/platforms', { form: { name: 'Elsewhere', max_users: 0, max_space: 0 } }), 201).platform
        .slug,
    )
    const there = await makePlace(admin, 'Elsewhere TV', platform)
    const node = resourceOf(
      await publish(admin, there.stream, { file: paper, title: 'Abroad', visibility: 'visible' }),
      201,
    )
    expect(node.file).toEqual({ '@href': `${app.url}/file/${paper}` })
    expect(node.stream).toEqual({ '@href': `${app.url}/stream/${there.stream}` })
    expect(await listedSlugs(admin, there.stream)).toEqual([text(node.slug)])
  })
})
