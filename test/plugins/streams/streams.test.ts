import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { keysOf } from '../identity/permissions.fixtures.js'
import {
  DECLARATION,
  INVALID,
  NEEDS_ROLE,
  createMedia,
  createRole,
  createStream,
  expectError,
  grant,
  mediaForm,
  slugsIn,
  startPublishing,
  viewer,
  xmlOf,
} from '../media/publishing.fixtures.js'

interface Expected {
  slug: string
  title: string
  subtitle?: string
  description?: string
  visibility?: string
  media?: string
  /** The parent's slug; absent: at the top of the media. */
  parent?: string
}

const INFO_KEYS = [
  '@href',
  'accesses',
  'description',
  'media',
  'parent_stream',
  'resources',
  'slug',
  'sub_title',
  'subtitle',
  'title',
  'visibility',
]
const LIST_KEYS = [
  '@href',
  'description',
  'media',
  'parent_stream',
  'slug',
  'sub_title',
  'subtitle',
  'title',
  'visibility',
]

let app: TestApp

function expectParent(node: XmlObject, parent: string | undefined): void {
  if (parent === undefined) expect(node.parent_stream).toBe('')
  else expect(node.parent_stream).toEqual({ '@href': `${app.url}/stream/${parent}`, '#text': parent })
}

function expectFields(node: XmlObject, e: Expected): void {
  expect(node['@href']).toBe(`${app.url}/stream/${e.slug}`)
  expect(text(node.slug)).toBe(e.slug)
  expect(text(node.title)).toBe(e.title)
  expect(text(node.subtitle)).toBe(e.subtitle ?? '')
  expect(text(node.sub_title)).toBe(e.subtitle ?? '')
  expect(text(node.description)).toBe(e.description ?? '')
  expect(text(node.visibility)).toBe(e.visibility ?? 'visible')
  expect(node.media).toEqual({ '@href': `${app.url}/media/${e.media ?? 'news'}` })
  expectParent(node, e.parent)
}

/** Stream info (info, create and update answers): the fields and the media, resources and accesses links. */
function expectInfo(res: Response, status: number, e: Expected): void {
  const doc = xmlOf(res, status)
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['stream'])
  const node = doc.stream as XmlObject
  expect(keysOf(node)).toEqual(INFO_KEYS)
  expectFields(node, e)
  expect(node.resources).toEqual({ '@href': `${app.url}/stream/${e.slug}/resources` })
  expect(node.accesses).toEqual({ '@href': `${app.url}/stream/${e.slug}/accesses` })
}

const post = (client: DigestClient, media: string, form: Record<string, string>) =>
  client.post(`/media/${media}/streams`, { form })
const streams = (client: DigestClient, media: string, headers: Record<string, string> = {}) =>
  client.get(`/media/${media}/streams`, { headers })
const streamSlugs = async (client: DigestClient, media: string) =>
  slugsIn(await streams(client, media), 'streams', 'stream')

beforeAll(async () => {
  app = await startPublishing()
  await createMedia(app.client, mediaForm('News', 'news.example.org'))
  await createMedia(app.client, mediaForm('Sport', 'sport.example.org'))
})
afterAll(async () => app?.close())

describe('streams API', () => {
  it('a new media has an empty stream list', async () => {
    const res = await streams(app.client, 'news')
    expect(res.body).toBe(`${DECLARATION}<streams href="${app.url}/media/news/streams"/>`)
    expect(res.headers['content-range']).toBe('entities */0')
    expectError(await streams(app.client, 'nope'), 404, 'No media "nope".')
  })

  it('POST answers 201 with every field: empty parent_stream, subtitle and sub_title, media, resources, accesses', async () => {
    const res = await post(app.client, 'news', {
      title: 'Live',
      subtitle: 'Around the clock',
      description: '<p>Live <b>now</b></p>',
      visibility: 'visible',
    })
    const expected = {
      slug: 'live',
      title: 'Live',
      subtitle: 'Around the clock',
      description: '<p>Live <b>now</b></p>',
    }
    expectInfo(res, 201, expected)
    const base = app.url
    expect(res.body).toBe(
      `${DECLARATION}<stream href="${base}/stream/live"><slug><![CDATA[live]]></slug><parent_stream/>` +
        `<title><![CDATA[Live]]></title><subtitle><![CDATA[Around the clock]]></subtitle>` +
        `<sub_title><![CDATA[Around the clock]]></sub_title><media href="${base}/media/news"/>` +
        `<description><![CDATA[<p>Live <b>now</b></p>]]></description><visibility><![CDATA[visible]]></visibility>` +
        `<resources href="${base}/stream/live/resources"/><accesses href="${base}/stream/live/accesses"/></stream>`,
    )
    expectInfo(await app.client.get('/stream/live'), 200, expected)
  })

  it('accepts sub_title for subtitle; parent_stream names the parent, shown as a link holding its slug', async () => {
    const res = await post(app.client, 'news', {
      title: 'Live evening',
      sub_title: 'After six',
      visibility: 'hidden',
      parent_stream: 'live',
    })
    const expected = {
      slug: 'live-evening',
      title: 'Live evening',
      subtitle: 'After six',
      visibility: 'hidden',
      parent: 'live',
    }
    expectInfo(res, 201, expected)
    expect(res.body).toContain(
      `<parent_stream href="${app.url}/stream/live"><![CDATA[live]]></parent_stream><title><![CDATA[Live evening]]></title>`,
    )
    expectInfo(await app.client.get('/stream/live-evening'), 200, expected)
    expectInfo(await post(app.client, 'news', { title: 'Drafts', visibility: 'draft', parent_stream: '' }), 201, {
      slug: 'drafts',
      title: 'Drafts',
      visibility: 'draft',
    })
  })

  it('lists the streams of the media, oldest first, with sub_title (and subtitle) and no foreign links; Range pages', async () => {
    await createStream(app.client, 'sport', 'Football')
    const res = await streams(app.client, 'news')
    const doc = xmlOf(res, 200)
    expect(doc.streams['@href']).toBe(`${app.url}/media/news/streams`)
    expect(slugsIn(res, 'streams', 'stream')).toEqual(['live', 'live-evening', 'drafts'])
    expect(res.headers['content-range']).toBe('entities 0-2/3')
    const entries = list<XmlObject>(doc.streams.stream)
    for (const entry of entries) expect(keysOf(entry)).toEqual(LIST_KEYS)
    expectFields(entries[0]!, {
      slug: 'live',
      title: 'Live',
      subtitle: 'Around the clock',
      description: '<p>Live <b>now</b></p>',
    })
    expectFields(entries[1]!, {
      slug: 'live-evening',
      title: 'Live evening',
      subtitle: 'After six',
      visibility: 'hidden',
      parent: 'live',
    })
    // The list names the subtitle `sub_title` first (the spec's list name).
    expect(res.body).toContain(
      '<title><![CDATA[Live]]></title><sub_title><![CDATA[Around the clock]]></sub_title><subtitle><![CDATA[Around the clock]]></subtitle>',
    )
    const page = await streams(app.client, 'news', { range: 'entities=1-1' })
    expect(slugsIn(page, 'streams', 'stream')).toEqual(['live-evening'])
    expect(page.headers['content-range']).toBe('entities 1-1/3')
    const past = await streams(app.client, 'news', { range: 'entities=3-' })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe('entities */3')
    expect(await streamSlugs(app.client, 'sport')).toEqual(['football'])
  })

  it('PUT is a partial update answering 201; empty subtitle and description clear them; the slug never changes', async () => {
    await createStream(app.client, 'news', 'Editable', { subtitle: 'sub', description: 'desc' })
    const renamed = await app.client.put('/stream/editable', { form: { title: 'Edited', slug: 'ignored' } })
    const expected = { slug: 'editable', title: 'Edited', subtitle: 'sub', description: 'desc' }
    expectInfo(renamed, 201, expected)
    const cleared = await app.client.put('/stream/editable', {
      form: { sub_title: '', description: '', visibility: 'draft' },
    })
    const after = { slug: 'editable', title: 'Edited', visibility: 'draft' }
    expectInfo(cleared, 201, after)
    expectInfo(await app.client.get('/stream/editable'), 200, after)
    expectInfo(await app.client.put('/stream/editable', { form: { subtitle: 'again' } }), 201, {
      ...after,
      subtitle: 'again',
    })
    expectError(await app.client.put('/stream/editable', { form: { title: '' } }), 412, INVALID, {
      title: 'cannot be empty',
    })
    expectError(await app.client.put('/stream/editable', { form: { visibility: '' } }), 412, INVALID, {
      visibility: 'cannot be empty',
    })
    expectError(await app.client.get('/stream/edited'), 404, 'No stream "edited".')
  })

  it('PUT moves a stream under another one (parent_stream) or back to the top (parent_stream empty)', async () => {
    const top = await createStream(app.client, 'news', 'Movable')
    expectInfo(await app.client.put(`/stream/${top}`, { form: { parent_stream: 'live' } }), 201, {
      slug: top,
      title: 'Movable',
      parent: 'live',
    })
    expectInfo(await app.client.put(`/stream/${top}`, { form: { parent_stream: '' } }), 201, {
      slug: top,
      title: 'Movable',
    })
  })

  it('DELETE answers 204 and removes the stream with its sub-streams, at every depth', async () => {
    const root = await createStream(app.client, 'news', 'Doomed')
    const child = await createStream(app.client, 'news', 'Doomed child', { parent_stream: root })
    const grandchild = await createStream(app.client, 'news', 'Doomed grandchild', { parent_stream: child })
    const sibling = await createStream(app.client, 'news', 'Survivor')
    const res = await app.client.delete(`/stream/${root}`)
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    for (const slug of [root, child, grandchild]) {
      expectError(await app.client.get(`/stream/${slug}`), 404, `No stream "${slug}".`)
    }
    const left = await streamSlugs(app.client, 'news')
    expect(left).toContain(sibling)
    for (const slug of [root, child, grandchild]) expect(left).not.toContain(slug)
    expectError(await app.client.delete(`/stream/${root}`), 404, `No stream "${root}".`)
    // Deleting a sub-stream leaves its parent.
    const parent = await createStream(app.client, 'news', 'Parent')
    const only = await createStream(app.client, 'news', 'Only child', { parent_stream: parent })
    expect((await app.client.delete(`/stream/${only}`)).status).toBe(204)
    expectInfo(await app.client.get(`/stream/${parent}`), 200, { slug: parent, title: 'Parent' })
  })

  it('unauthenticated requests answer 401', async () => {
    for (const [method, path] of [
      ['GET', '/media/news/streams'],
      ['POST', '/media/news/streams'],
      ['GET', '/stream/live'],
      ['PUT', '/stream/live'],
      ['DELETE', '/stream/live'],
      ['GET', '/stream/live/accesses'],
    ] as const) {
      expect((await rawRequest(`${app.url}${path}`, method)).status, `${method} ${path}`).toBe(401)
    }
  })
})

describe('stream validation (412)', () => {
  const invalid = async (media: string, form: Record<string, string>, fields: Record<string, string>) =>
    expectError(await post(app.client, media, form), 412, INVALID, fields)

  it('title and visibility are required; visibility is visible, hidden or draft', async () => {
    await invalid('news', {}, { title: 'is required', visibility: 'is required' })
    await invalid('news', { title: ' ', visibility: '' }, { title: 'is required', visibility: 'is required' })
    for (const visibility of ['public', 'private', 'VISIBLE']) {
      await invalid('news', { title: 'T', visibility }, { visibility: 'must be one of: visible, hidden, draft' })
    }
    expectError(await app.client.put('/stream/live', { form: { visibility: 'public' } }), 412, INVALID, {
      visibility: 'must be one of: visible, hidden, draft',
    })
  })

  it('title and subtitle: at most 255 characters', async () => {
    await invalid(
      'news',
      { title: 't'.repeat(256), visibility: 'visible' },
      { title: 'must be at most 255 characters' },
    )
    await invalid(
      'news',
      { title: 'T', subtitle: 's'.repeat(256), visibility: 'visible' },
      { subtitle: 'must be at most 255 characters' },
    )
    const res = await post(app.client, 'news', { title: 'é'.repeat(255), visibility: 'visible' })
    expect(text(xmlOf(res, 201).stream.title)).toBe('é'.repeat(255))
    expect(text(xmlOf(res, 201).stream.slug)).toBe('e'.repeat(64))
    expectError(await app.client.put('/stream/live', { form: { title: 't'.repeat(256) } }), 412, INVALID, {
      title: 'must be at most 255 characters',
    })
  })

  it('parent_stream must be a stream of the same media', async () => {
    await invalid(
      'news',
      { title: 'T', visibility: 'visible', parent_stream: 'nope' },
      {
        parent_stream: 'there is no stream "nope"',
      },
    )
    await invalid(
      'news',
      { title: 'T', visibility: 'visible', parent_stream: 'football' },
      {
        parent_stream: 'is a stream of another media',
      },
    )
    expectError(await app.client.put('/stream/live', { form: { parent_stream: 'football' } }), 412, INVALID, {
      parent_stream: 'is a stream of another media',
    })
    expectError(await app.client.put('/stream/live', { form: { parent_stream: 'nope' } }), 412, INVALID, {
      parent_stream: 'there is no stream "nope"',
    })
  })

  it('a stream cannot become its own parent, nor move below one of its descendants', async () => {
    const a = await createStream(app.client, 'news', 'Cycle A')
    const b = await createStream(app.client, 'news', 'Cycle B', { parent_stream: a })
    const c = await createStream(app.client, 'news', 'Cycle C', { parent_stream: b })
    expectError(await app.client.put(`/stream/${a}`, { form: { parent_stream: a } }), 412, INVALID, {
      parent_stream: 'is the stream itself: a stream cannot hold itself',
    })
    for (const below of [b, c]) {
      expectError(await app.client.put(`/stream/${a}`, { form: { parent_stream: below } }), 412, INVALID, {
        parent_stream: 'is below this stream: moving it there would make a cycle',
      })
    }
    // Nothing moved: a stays at the top, c under b.
    expectInfo(await app.client.get(`/stream/${a}`), 200, { slug: a, title: 'Cycle A' })
    expectInfo(await app.client.get(`/stream/${c}`), 200, { slug: c, title: 'Cycle C', parent: b })
  })

  it('concurrent moves cannot make a cycle: of two streams moved below each other, one move is refused', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await createStream(app.client, 'news', `Swap A ${round}`)
      const b = await createStream(app.client, 'news', `Swap B ${round}`)
      const answers = await Promise.all([
        app.client.put(`/stream/${a}`, { form: { parent_stream: b } }),
        app.client.put(`/stream/${b}`, { form: { parent_stream: a } }),
      ])
      expect(answers.map((res) => res.status).sort(), answers.map((res) => res.body).join('\n')).toEqual([201, 412])
      expectError(
        answers.find((res) => res.status === 412)!,
        412,
        INVALID,
        {
          parent_stream: 'is below this stream: moving it there would make a cycle',
        },
      )
      // The move that won holds: the other stream stays at the top.
      const parents = await Promise.all(
        [a, b].map(async (slug) => text(xmlOf(await app.client.get(`/stream/${slug}`), 200).stream.parent_stream)),
      )
      expect(parents).toEqual(answers[0]!.status === 201 ? [b, ''] : ['', a])
    }
  })

  it('creating below a stream being deleted: the creation is refused (412) or deleted with it, never an error', async () => {
    for (let round = 0; round < 5; round++) {
      const parent = await createStream(app.client, 'news', `Vanishing ${round}`)
      const [created, deleted] = await Promise.all([
        post(app.client, 'news', { title: `Orphan ${round}`, visibility: 'visible', parent_stream: parent }),
        app.client.delete(`/stream/${parent}`),
      ])
      expect(deleted.status).toBe(204)
      if (created.status === 201) {
        const child = text(xmlOf(created, 201).stream.slug)
        expectError(await app.client.get(`/stream/${child}`), 404, `No stream "${child}".`)
      } else {
        const message = created.body.includes('was deleted meanwhile')
          ? 'was deleted meanwhile'
          : `there is no stream "${parent}"`
        expectError(created, 412, INVALID, { parent_stream: message })
      }
    }
    const left = await streamSlugs(app.client, 'news')
    expect(left.filter((slug) => slug.startsWith('orphan') || slug.startsWith('vanishing'))).toEqual([])
  })

  it('lists every failing field in one answer', async () => {
    await invalid(
      'news',
      { title: 't'.repeat(256), visibility: 'public', sub_title: 's'.repeat(256) },
      {
        title: 'must be at most 255 characters',
        subtitle: 'must be at most 255 characters',
        visibility: 'must be one of: visible, hidden, draft',
      },
    )
  })
})

describe('max_streams', () => {
  const full = (media: string, max: number) =>
    `The media "${media}" may hold at most ${max} streams: delete one, or raise its max_streams.`

  it('10 concurrent creations in a media limited to 3: exactly 3 are created, the others answer 412', async () => {
    const media = await createMedia(app.client, mediaForm('Limited', 'limited.example.org', { max_streams: 3 }))
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(app.client, media, { title: `Race ${i}`, visibility: 'visible' })),
    )
    expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 201, 412, 412, 412, 412, 412, 412, 412])
    for (const res of answers.filter((r) => r.status === 412)) {
      expectError(res, 412, full(media, 3), { max_streams: 'the media holds its maximum of 3 streams' })
    }
    const listed = await streams(app.client, media)
    expect(slugsIn(listed, 'streams', 'stream')).toHaveLength(3)
    expect(listed.headers['content-range']).toBe('entities 0-2/3')
  })

  it('sub-streams count; deleting one frees a place; raising max_streams allows more', async () => {
    const media = await createMedia(app.client, mediaForm('Small', 'small.example.org', { max_streams: 2 }))
    const top = await createStream(app.client, media, 'Small top')
    const sub = await createStream(app.client, media, 'Small sub', { parent_stream: top })
    expectError(
      await post(app.client, media, { title: 'Third', visibility: 'visible', parent_stream: sub }),
      412,
      full(media, 2),
      {
        max_streams: 'the media holds its maximum of 2 streams',
      },
    )
    expect((await app.client.delete(`/stream/${sub}`)).status).toBe(204)
    await createStream(app.client, media, 'Small again')
    expect((await app.client.put(`/media/${media}`, { form: { max_streams: 3 } })).status).toBe(201)
    await createStream(app.client, media, 'Small third')
    expect(await streamSlugs(app.client, media)).toHaveLength(3)
    // Lowering below the count keeps the streams and refuses new ones.
    expect((await app.client.put(`/media/${media}`, { form: { max_streams: 1 } })).status).toBe(201)
    expect(await streamSlugs(app.client, media)).toHaveLength(3)
    expectError(await post(app.client, media, { title: 'Fourth', visibility: 'visible' }), 412, full(media, 1), {
      max_streams: 'the media holds its maximum of 1 streams',
    })
  })

  it('max_streams 0 is unlimited; concurrent creations of one title get distinct slugs', async () => {
    const media = await createMedia(app.client, mediaForm('Unlimited', 'unlimited.example.org', { max_streams: 0 }))
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => post(app.client, media, { title: 'Many', visibility: 'visible' })),
    )
    expect(answers.map((res) => res.status)).toEqual(Array(12).fill(201))
    const slugs = answers.map((res) => text(xmlOf(res, 201).stream.slug))
    expect(slugs.sort()).toEqual(['many', ...Array.from({ length: 11 }, (_, i) => `many-${i + 2}`)].sort())
    expect((await streamSlugs(app.client, media)).sort()).toEqual(slugs)
  })
})

describe('stream visibility', () => {
  let viewerClient: DigestClient
  let protectedClient: DigestClient
  let media: string
  const s = {} as Record<
    'visible' | 'visibleChild' | 'hidden' | 'hiddenChild' | 'hiddenGrandchild' | 'draft' | 'draftChild',
    string
  >

  beforeAll(async () => {
    media = await createMedia(app.client, mediaForm('Visibility', 'visibility.example.org'))
    s.visible = await createStream(app.client, media, 'Shown')
    s.visibleChild = await createStream(app.client, media, 'Shown child', { parent_stream: s.visible })
    s.hidden = await createStream(app.client, media, 'Secret', { visibility: 'hidden' })
    s.hiddenChild = await createStream(app.client, media, 'Secret child', { parent_stream: s.hidden })
    s.hiddenGrandchild = await createStream(app.client, media, 'Secret grandchild', { parent_stream: s.hiddenChild })
    s.draft = await createStream(app.client, media, 'Unfinished', { visibility: 'draft' })
    s.draftChild = await createStream(app.client, media, 'Unfinished child', { parent_stream: s.draft })
    const plain = await createRole(app, 'Stream viewer', ['media.view', 'stream.view'])
    const full = await createRole(app, 'Stream insider', ['media.view', 'stream.view', 'stream.view_protected'])
    viewerClient = await viewer(app, 'valerie')
    protectedClient = await viewer(app, 'ivan')
    await grant(app, 'valerie', 'media', media, plain)
    await grant(app, 'ivan', 'media', media, full)
  })

  it('with stream.view only: visible streams only; hidden and draft ones and everything below them are absent and 404', async () => {
    const res = await streams(viewerClient, media)
    expect(slugsIn(res, 'streams', 'stream')).toEqual([s.visible, s.visibleChild])
    expect(res.headers['content-range']).toBe('entities 0-1/2')
    xmlOf(await viewerClient.get(`/stream/${s.visible}`), 200)
    xmlOf(await viewerClient.get(`/stream/${s.visibleChild}`), 200)
    for (const key of ['hidden', 'hiddenChild', 'hiddenGrandchild', 'draft', 'draftChild'] as const) {
      expectError(await viewerClient.get(`/stream/${s[key]}`), 404, `No stream "${s[key]}".`)
      expectError(await viewerClient.get(`/stream/${s[key]}/accesses`), 404, `No stream "${s[key]}".`)
    }
    // Not even as a parent: an unseen parent is reported like a missing one.
    expectError(
      await post(viewerClient, media, { title: 'Probe', visibility: 'visible', parent_stream: s.hidden }),
      412,
      INVALID,
      { parent_stream: `there is no stream "${s.hidden}"` },
    )
  })

  it('with stream.view_protected: every stream, hidden and draft ones included', async () => {
    const all = [s.visible, s.visibleChild, s.hidden, s.hiddenChild, s.hiddenGrandchild, s.draft, s.draftChild]
    expect(await streamSlugs(protectedClient, media)).toEqual(all)
    for (const slug of all) xmlOf(await protectedClient.get(`/stream/${slug}`), 200)
  })

  it('the administrator sees everything', async () => {
    expect(await streamSlugs(app.client, media)).toHaveLength(7)
    xmlOf(await app.client.get(`/stream/${s.hiddenGrandchild}`), 200)
  })

  it('view_protected granted on one hidden stream shows that subtree, in the list as by slug', async () => {
    const insider = await createRole(app, 'Secret insider', ['stream.view', 'stream.view_protected'])
    await grant(app, 'valerie', 'stream', s.hidden, insider)
    const expected = [s.visible, s.visibleChild, s.hidden, s.hiddenChild, s.hiddenGrandchild]
    expect(await streamSlugs(viewerClient, media)).toEqual(expected)
    for (const slug of expected) xmlOf(await viewerClient.get(`/stream/${slug}`), 200)
    expectError(await viewerClient.get(`/stream/${s.draft}`), 404, `No stream "${s.draft}".`)
  })

  it('making a stream visible shows it (and what it holds) at once; hiding it hides them', async () => {
    const watcher = await viewer(app, 'walter')
    await grant(app, 'walter', 'media', media, 'stream-viewer')
    expect((await app.client.put(`/stream/${s.draft}`, { form: { visibility: 'visible' } })).status).toBe(201)
    expect(await streamSlugs(watcher, media)).toEqual([s.visible, s.visibleChild, s.draft, s.draftChild])
    xmlOf(await watcher.get(`/stream/${s.draftChild}`), 200)
    expect((await app.client.put(`/stream/${s.visible}`, { form: { visibility: 'hidden' } })).status).toBe(201)
    expect(await streamSlugs(watcher, media)).toEqual([s.draft, s.draftChild])
    expectError(await watcher.get(`/stream/${s.visibleChild}`), 404, `No stream "${s.visibleChild}".`)
  })
})

describe('stream authorization', () => {
  let media: string
  let sam: DigestClient
  let nora: DigestClient
  let olga: DigestClient
  const s = {} as Record<'granted' | 'child' | 'grandchild' | 'sibling' | 'secret', string>

  beforeAll(async () => {
    media = await createMedia(app.client, mediaForm('Granted', 'granted.example.org'))
    s.granted = await createStream(app.client, media, 'Granted stream')
    s.child = await createStream(app.client, media, 'Granted child', { parent_stream: s.granted })
    s.grandchild = await createStream(app.client, media, 'Granted grandchild', { parent_stream: s.child })
    s.sibling = await createStream(app.client, media, 'Sibling stream')
    s.secret = await createStream(app.client, media, 'Granted secret', {
      visibility: 'hidden',
      parent_stream: s.granted,
    })
    const keeper = await createRole(app, 'Stream keeper', [
      'stream.view',
      'stream.create',
      'stream.edit',
      'stream.delete',
      'stream.manage_access',
    ])
    sam = await viewer(app, 'sam')
    nora = await viewer(app, 'nora')
    await grant(app, 'sam', 'stream', s.granted, keeper)
    await grant(app, 'nora', 'media', media, 'stream-viewer')
    const other = text(
      xmlOf(await app.client.post('/platforms', { form: { name: 'Elsewhere', max_users: 0, max_space: 0 } }), 201)
        .platform.slug,
    )
    olga = await app.createUser({ username: 'olga', platform: other })
  })

  it('a role on one stream only: that stream and its sub-streams (200), not its sibling, not the media (404)', async () => {
    expectInfo(await sam.get(`/stream/${s.granted}`), 200, { slug: s.granted, title: 'Granted stream', media })
    expectInfo(await sam.get(`/stream/${s.child}`), 200, {
      slug: s.child,
      title: 'Granted child',
      media,
      parent: s.granted,
    })
    xmlOf(await sam.get(`/stream/${s.grandchild}`), 200)
    expectError(await sam.get(`/stream/${s.sibling}`), 404, `No stream "${s.sibling}".`)
    expectError(await sam.get(`/stream/${s.secret}`), 404, `No stream "${s.secret}".`)
    expectError(await sam.get(`/media/${media}`), 404, `No media "${media}".`)
    expectError(await streams(sam, media), 404, `No media "${media}".`)
    // Creating goes through the media's list, which the user does not see, even below the granted stream.
    expectError(
      await post(sam, media, { title: 'Sub', visibility: 'visible', parent_stream: s.granted }),
      404,
      `No media "${media}".`,
    )
  })

  it('the role acts on the stream and below: edit and delete there, 404 elsewhere', async () => {
    const res = await sam.put(`/stream/${s.child}`, { form: { description: 'by sam' } })
    expect(text(xmlOf(res, 201).stream.description)).toBe('by sam')
    expectError(await sam.put(`/stream/${s.sibling}`, { form: { title: 'x' } }), 404, `No stream "${s.sibling}".`)
    expectError(await sam.delete(`/stream/${s.sibling}`), 404, `No stream "${s.sibling}".`)
    // Moving the granted stream below one the user cannot see: like a missing parent.
    expectError(await sam.put(`/stream/${s.child}`, { form: { parent_stream: s.sibling } }), 412, INVALID, {
      parent_stream: `there is no stream "${s.sibling}"`,
    })
    const doomed = await createStream(app.client, media, 'Sam can delete', { parent_stream: s.child })
    expect((await sam.delete(`/stream/${doomed}`)).status).toBe(204)
  })

  it('a Viewer role on the media: sees the streams, 403 on changes, 403 on creation', async () => {
    expect(await streamSlugs(nora, media)).toEqual([s.granted, s.child, s.grandchild, s.sibling])
    expectError(await nora.put(`/stream/${s.sibling}`, { form: { title: 'x' } }), 403, NEEDS_ROLE('stream.edit'))
    expectError(await nora.delete(`/stream/${s.sibling}`), 403, NEEDS_ROLE('stream.delete'))
    expectError(await post(nora, media, { title: 'Mine', visibility: 'visible' }), 403, NEEDS_ROLE('stream.create'))
    expectError(
      await post(nora, media, { title: 'Mine', visibility: 'visible', parent_stream: s.sibling }),
      403,
      NEEDS_ROLE('stream.create'),
    )
    // Without stream.create, an invalid request is refused for the right, not for the data.
    expectError(await post(nora, media, {}), 403, NEEDS_ROLE('stream.create'))
    expect(await streamSlugs(app.client, media)).toHaveLength(5)
  })

  it('moving a stream needs stream.create where it goes: on the new parent, or on the media for the top', async () => {
    const mover = await createRole(app, 'Stream mover', ['stream.view', 'stream.edit'])
    const mona = await viewer(app, 'mona')
    await grant(app, 'mona', 'media', media, 'stream-viewer')
    await grant(app, 'mona', 'stream', s.sibling, mover)
    const inner = await createStream(app.client, media, 'Mona inner', { parent_stream: s.sibling })
    // mona edits below the sibling and sees the granted stream, but may not create in it nor at the top.
    expectError(
      await mona.put(`/stream/${inner}`, { form: { parent_stream: s.granted } }),
      403,
      NEEDS_ROLE('stream.create'),
    )
    expectError(await mona.put(`/stream/${inner}`, { form: { parent_stream: '' } }), 403, NEEDS_ROLE('stream.create'))
    expectInfo(await app.client.get(`/stream/${inner}`), 200, {
      slug: inner,
      title: 'Mona inner',
      media,
      parent: s.sibling,
    })
    // Sending the parent it already has is no move.
    const same = await mona.put(`/stream/${inner}`, { form: { parent_stream: s.sibling, title: 'Mona renamed' } })
    expectInfo(same, 201, { slug: inner, title: 'Mona renamed', media, parent: s.sibling })
    // sam holds stream.create on the granted stream: he moves streams within it, not out of it.
    const moved = await sam.put(`/stream/${s.grandchild}`, { form: { parent_stream: s.granted } })
    expectInfo(moved, 201, { slug: s.grandchild, title: 'Granted grandchild', media, parent: s.granted })
    expectError(await sam.put(`/stream/${s.child}`, { form: { parent_stream: '' } }), 403, NEEDS_ROLE('stream.create'))
    expect(text(xmlOf(await app.client.get(`/stream/${s.child}`), 200).stream.parent_stream)).toBe(s.granted)
  })

  it('another tenant sees nothing (404), even its administrator', async () => {
    expectError(await olga.get(`/stream/${s.granted}`), 404, `No stream "${s.granted}".`)
    expectError(await streams(olga, media), 404, `No media "${media}".`)
    expectError(await post(olga, media, { title: 'Theirs', visibility: 'visible' }), 404, `No media "${media}".`)
    expectError(await olga.put(`/stream/${s.granted}`, { form: { title: 'x' } }), 404, `No stream "${s.granted}".`)
    expectError(await olga.delete(`/stream/${s.granted}`), 404, `No stream "${s.granted}".`)
    expectError(await olga.get(`/stream/${s.granted}/accesses`), 404, `No stream "${s.granted}".`)
  })

  it('GET /stream/<slug>/accesses lists the accesses on the stream, for who may manage them', async () => {
    const res = await app.client.get(`/stream/${s.granted}/accesses`)
    const doc = xmlOf(res, 200)
    expect(doc.accesses['@href']).toBe(`${app.url}/stream/${s.granted}/accesses`)
    const access = doc.accesses.access as XmlObject
    expect(keysOf(access)).toEqual(['@href', 'role', 'stream', 'user'])
    expect(access['@href']).toMatch(new RegExp(`^${app.url}/user/sam/accesses/[A-Za-z0-9]{12}$`))
    expect(access.user).toEqual({ '@href': `${app.url}/user/sam` })
    expect(access.stream).toEqual({ '@href': `${app.url}/stream/${s.granted}` })
    expect(access.role).toEqual({ '@href': `${app.url}/role/stream-keeper` })
    // stream.manage_access on the stream (and the Viewer profile's user.view, group.view): allowed.
    expect(xmlOf(await sam.get(`/stream/${s.granted}/accesses`), 200).accesses.access).toEqual(access)
    // A sub-stream holds no access of its own.
    expect(xmlOf(await sam.get(`/stream/${s.child}/accesses`), 200).accesses).toEqual({
      '@href': `${app.url}/stream/${s.child}/accesses`,
    })
    expectError(
      await nora.get(`/stream/${s.granted}/accesses`),
      403,
      'This needs the "user.manage_access" or "group.manage_access" permission of your profile, or "stream.manage_access" on the stream.',
    )
    expectError(await sam.get(`/stream/${s.sibling}/accesses`), 404, `No stream "${s.sibling}".`)
    expectError(await app.client.get('/stream/nope/accesses'), 404, 'No stream "nope".')
  })

  it('with media.view on the media too, a role on a stream lets its holder create below that stream only', async () => {
    const mediaOnly = await createRole(app, 'Media only', ['media.view'])
    const sue = await viewer(app, 'sue')
    await grant(app, 'sue', 'media', media, mediaOnly)
    await grant(app, 'sue', 'stream', s.granted, 'stream-keeper')
    const res = await post(sue, media, { title: 'Sue below', visibility: 'visible', parent_stream: s.granted })
    expectInfo(res, 201, { slug: 'sue-below', title: 'Sue below', media, parent: s.granted })
    expectError(await post(sue, media, { title: 'Sue top', visibility: 'visible' }), 403, NEEDS_ROLE('stream.create'))
    // The media role has no stream.view: the list shows the granted subtree only.
    expect(await streamSlugs(sue, media)).toEqual([s.granted, s.child, s.grandchild, 'sue-below'])
  })

  it('deleting a stream removes the accesses on it and on its sub-streams', async () => {
    const top = await createStream(app.client, media, 'Revoked top')
    const sub = await createStream(app.client, media, 'Revoked sub', { parent_stream: top })
    await grant(app, 'nora', 'stream', sub, 'stream-keeper')
    const before = await app.client.get('/user/nora/accesses')
    expect(before.body).toContain(`<stream href="${app.url}/stream/${sub}"/>`)
    expect((await app.client.delete(`/stream/${top}`)).status).toBe(204)
    const after = await app.client.get('/user/nora/accesses')
    expect(after.status).toBe(200)
    expect(after.body).not.toContain(`/stream/${sub}"`)
    expect(after.body).toContain(`<media href="${app.url}/media/${media}"/>`)
  })
})
