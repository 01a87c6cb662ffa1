import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ResourceExtras, resourceQueries } from '../../../plugins/resources/index.js'
import { WidgetEntity } from '../../../plugins/widgets/index.js'
import { createWidget } from '../../../plugins/widgets/widget.service.js'
import { HttpError, transaction } from '../../../src/kernel/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { INVALID, NEEDS, expectError, keysOf, userWithFlags, xmlOf } from '../identity/permissions.fixtures.js'
import { grantOnStream, iframeAttributes, makePlace, makeResource, playerSlugs } from './widgets.helpers.js'

/** What one widget must show. */
interface Expected {
  slug: string
  name: string
  width: number
  height: number
  resource: string
  theme?: string
  behavior?: string
}

const LIST_KEYS = ['@href', 'name', 'size', 'slug', 'thumbnail']
const INFO_KEYS = [...LIST_KEYS, 'embeds', 'player_behavior', 'player_theme', 'resource'].sort()

let app: TestApp

const widgetsPath = (resource: string) => `/resource/${resource}/widgets`
const widgetPath = (resource: string, widget: string) => `/resource/${resource}/widgets/${widget}`

/** The HTML-escaped form of a text, as the iframe's title carries it. */
const escaped = (value: string): string =>
  value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')

/** The embed codes a widget must have. */
function expectedCodes(e: Pick<Expected, 'slug' | 'name' | 'width' | 'height'>): {
  iframe: string
  javascript: string
} {
  return {
    iframe:
      `<iframe src="${app.url}/embed/${e.slug}" width="${e.width}" height="${e.height}" frameborder="0" ` +
      `allow="autoplay; fullscreen; picture-in-picture" allowfullscreen title="${escaped(e.name)}"></iframe>`,
    javascript: `<script src="${app.url}/embed/${e.slug}.js" async></script>`,
  }
}

function expectListFields(node: XmlObject, e: Expected): void {
  expect(node['@href']).toBe(`${app.url}/resource/${e.resource}/widgets/${e.slug}`)
  expect(text(node.slug)).toBe(e.slug)
  expect(text(node.name)).toBe(e.name)
  expect(text(node.size)).toBe(`${e.width}x${e.height}`)
  expect(text(node.thumbnail)).toBe(`${app.url}/resource/${e.resource}/thumbnail/thumb.jpg`)
}

/** Widget info (info, create and update answers): exactly the list fields, the links and the embeds. */
function expectInfo(doc: XmlObject, e: Expected): void {
  expect(Object.keys(doc).filter((k) => k !== '?xml')).toEqual(['widget'])
  const node = doc.widget as XmlObject
  expect(keysOf(node)).toEqual(INFO_KEYS)
  expectListFields(node, e)
  const link = (kind: string, slug?: string) => (slug ? { '@href': `${app.url}/platform/default/${kind}/${slug}` } : '')
  expect(node.player_theme).toEqual(link('player_theme', e.theme))
  expect(node.player_behavior).toEqual(link('player_behavior', e.behavior))
  expect(node.resource).toEqual({ '@href': `${app.url}/resource/${e.resource}` })
  expect(keysOf(node.embeds)).toEqual(['iframe', 'javascript'])
  const codes = expectedCodes(e)
  expect(text(node.embeds.iframe)).toBe(codes.iframe)
  expect(text(node.embeds.javascript)).toBe(codes.javascript)
  // Parsed back, the iframe points at the widget's player page with its size.
  const attrs = iframeAttributes(text(node.embeds.iframe))
  expect(new URL(attrs.src!).pathname).toBe(`/embed/${e.slug}`)
  expect([Number(attrs.width), Number(attrs.height)]).toEqual([e.width, e.height])
  expect(attrs).toHaveProperty('allowfullscreen', '')
}

const entries = (doc: XmlObject): XmlObject[] => list<XmlObject>(doc.widgets.widget)
const slugsOf = (doc: XmlObject): string[] => entries(doc).map((w) => text(w.slug))

/** Creates a widget as `client` (default the administrator), asserting 201; returns its slug. */
async function create(resource: string, form: Record<string, string>, client = app.client): Promise<string> {
  const res = await client.post(widgetsPath(resource), { form: { size: '640x360', ...form } })
  return text(xmlOf(res, 201).widget.slug)
}

/** How many widget rows exist. */
const rows = () => app.kernel.em().count(WidgetEntity, {})

/** The theme and behavior ids stored for a widget. */
async function storedPlayers(slug: string): Promise<[number | null, number | null]> {
  const widget = await app.kernel.em().findOneOrFail(WidgetEntity, { slug })
  const id = (ref: { id: number } | null) => (ref ? ref.id : null)
  return [id(widget.playerTheme), id(widget.playerBehavior)]
}

describe('widgets API', () => {
  let stream: string
  let resource: string
  let second: string
  let themes: string[]
  let behaviors: string[]
  let otherThemes: string[]
  let otherBehaviors: string[]

  beforeAll(async () => {
    app = await startApp()
    xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201)
    ;({ stream } = await makePlace(app.client, 'Shows'))
    resource = await makeResource(app.client, stream, 'Concert')
    second = await makeResource(app.client, stream, 'Encore')
    themes = await playerSlugs(app.client, 'player_theme')
    behaviors = await playerSlugs(app.client, 'player_behavior')
    otherThemes = await playerSlugs(app.client, 'player_theme', 'other')
    otherBehaviors = await playerSlugs(app.client, 'player_behavior', 'other')
    expect(themes.length).toBeGreaterThanOrEqual(2)
    expect(behaviors.length).toBeGreaterThanOrEqual(2)
    expect(otherThemes.length).toBeGreaterThanOrEqual(1)
    expect(otherBehaviors.length).toBeGreaterThanOrEqual(1)
  })
  afterAll(async () => app?.close())

  it('the list of a resource starts empty, with its href and the Range headers', async () => {
    const res = await app.client.get(widgetsPath(resource))
    expect(xmlOf(res, 200).widgets).toEqual({ '@href': `${app.url}${widgetsPath(resource)}` })
    expect(res.body).toContain(`<widgets href="${app.url}${widgetsPath(resource)}"/>`)
    expect(res.headers['content-range']).toBe('entities */0')
    expect(res.headers['accept-ranges']).toBe('entities')
  })

  it('POST answers 201 with every field, the links and the embed codes; GET answers the same', async () => {
    const res = await app.client.post(widgetsPath(resource), {
      form: { name: 'Home page', size: '640x360', player_theme: themes[0]!, player_behavior: behaviors[1]! },
    })
    const expected: Expected = {
      slug: 'home-page',
      name: 'Home page',
      width: 640,
      height: 360,
      resource,
      theme: themes[0],
      behavior: behaviors[1],
    }
    expectInfo(xmlOf(res, 201), expected)
    const codes = expectedCodes(expected)
    const base = `${app.url}/resource/${resource}`
    expect(res.body).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<widget href="${base}/widgets/home-page">` +
        `<slug><![CDATA[home-page]]></slug><name><![CDATA[Home page]]></name><size><![CDATA[640x360]]></size>` +
        `<thumbnail><![CDATA[${base}/thumbnail/thumb.jpg]]></thumbnail>` +
        `<player_theme href="${app.url}/platform/default/player_theme/${themes[0]}"/>` +
        `<player_behavior href="${app.url}/platform/default/player_behavior/${behaviors[1]}"/>` +
        `<resource href="${base}"/>` +
        `<embeds><iframe><![CDATA[${codes.iframe}]]></iframe><javascript><![CDATA[${codes.javascript}]]></javascript></embeds>` +
        `</widget>`,
    )
    expectInfo(xmlOf(await app.client.get(widgetPath(resource, 'home-page')), 200), expected)
  })

  it('without theme or behavior, both links are empty elements; the same name gets the next slug', async () => {
    const res = await app.client.post(widgetsPath(resource), { form: { name: 'Home page', size: '1x1' } })
    const expected = { slug: 'home-page-2', name: 'Home page', width: 1, height: 1, resource }
    expectInfo(xmlOf(res, 201), expected)
    expect(res.body).toContain('<player_theme/><player_behavior/>')
    expect(await storedPlayers('home-page-2')).toEqual([null, null])
    expectInfo(xmlOf(await app.client.get(widgetPath(resource, 'home-page-2')), 200), expected)
  })

  it('size accepts 1 to 7680 on each side, and an upper-case X, answered as WIDTHxHEIGHT', async () => {
    for (const [size, width, height] of [
      ['7680x7680', 7680, 7680],
      ['1920X1080', 1920, 1080],
      [' 0320x0240 ', 320, 240],
    ] as const) {
      const slug = await create(second, { name: `Size ${size.trim()}`, size })
      const node = xmlOf(await app.client.get(widgetPath(second, slug)), 200).widget
      expect(text(node.size)).toBe(`${width}x${height}`)
      expect(iframeAttributes(text(node.embeds.iframe))).toMatchObject({ width: `${width}`, height: `${height}` })
    }
  })

  it('a bad size answers 412 with a clear message and stores nothing', async () => {
    const before = await rows()
    const format = 'must be WIDTHxHEIGHT in pixels, such as 640x360'
    const range = 'must have a width and a height from 1 to 7680 pixels, such as 640x360'
    const cases: [string, string][] = [
      ['640', format],
      ['x360', format],
      ['640x', format],
      ['-1x2', format],
      ['+640x360', format],
      ['640 x 360', format],
      ['640x360px', format],
      ['640*360', format],
      ['6.5x3', format],
      ['640x360x2', format],
      ['0x0', range],
      ['0x360', range],
      ['640x0', range],
      ['7681x360', range],
      ['640x7681', range],
      ['99999999999999999999x1', range],
    ]
    for (const [size, message] of cases) {
      expectError(await app.client.post(widgetsPath(resource), { form: { name: 'Bad', size } }), 412, INVALID, {
        size: message,
      })
    }
    expectError(await app.client.post(widgetsPath(resource), { form: { name: 'Bad', size: '' } }), 412, INVALID, {
      size: 'is required',
    })
    expect(await rows()).toBe(before)
  })

  it('name and size are required; a long name or control characters answer 412; one answer lists every field', async () => {
    const before = await rows()
    expectError(await app.client.post(widgetsPath(resource), { form: {} }), 412, INVALID, {
      name: 'is required',
      size: 'is required',
    })
    expectError(
      await app.client.post(widgetsPath(resource), {
        form: { name: 'x'.repeat(256), size: 'big', player_theme: 'no-such-theme' },
      }),
      412,
      INVALID,
      {
        name: 'must be at most 255 characters',
        size: 'must be WIDTHxHEIGHT in pixels, such as 640x360',
        player_theme: 'no player theme "no-such-theme" on the platform of the resource',
      },
    )
    expectError(
      await app.client.post(widgetsPath(resource), { form: { name: 'a\u0001b', size: '2x2' } }),
      412,
      INVALID,
      {
        name: 'must not contain control characters',
      },
    )
    expect(await rows()).toBe(before)
    // 255 characters (not bytes) fit.
    const long = 'é'.repeat(255)
    const slug = await create(second, { name: long })
    expect(text(xmlOf(await app.client.get(widgetPath(second, slug)), 200).widget.name)).toBe(long)
  })

  it('a theme or behavior unknown, or of another platform, answers 412 without telling them apart', async () => {
    const before = await rows()
    const cases: [Record<string, string>, Record<string, string>][] = [
      [{ player_theme: 'nope' }, { player_theme: 'no player theme "nope" on the platform of the resource' }],
      [
        { player_theme: otherThemes[0]! },
        { player_theme: `no player theme "${otherThemes[0]}" on the platform of the resource` },
      ],
      [{ player_behavior: 'nope' }, { player_behavior: 'no player behavior "nope" on the platform of the resource' }],
      [
        { player_behavior: otherBehaviors[0]! },
        { player_behavior: `no player behavior "${otherBehaviors[0]}" on the platform of the resource` },
      ],
      // A theme's slug is no behavior's, and the other way round.
      [
        { player_theme: behaviors[0]!, player_behavior: themes[0]! },
        {
          player_theme: `no player theme "${behaviors[0]}" on the platform of the resource`,
          player_behavior: `no player behavior "${themes[0]}" on the platform of the resource`,
        },
      ],
      [{ player_theme: 'x'.repeat(65) }, { player_theme: 'must be at most 64 characters' }],
    ]
    for (const [form, fields] of cases) {
      const res = await app.client.post(widgetsPath(resource), { form: { name: 'Themed', size: '2x2', ...form } })
      expectError(res, 412, INVALID, fields)
    }
    const slug = await create(resource, { name: 'Plain one' })
    for (const [form, fields] of cases) {
      expectError(await app.client.put(widgetPath(resource, slug), { form }), 412, INVALID, fields)
    }
    expect(await rows()).toBe(before + 1)
    expect(await storedPlayers(slug)).toEqual([null, null])
  })

  it('lists widgets oldest first with exactly the list fields, pages with Range, and only those of the resource', async () => {
    const doc = xmlOf(await app.client.get(widgetsPath(resource)), 200)
    const slugs = slugsOf(doc)
    expect(slugs.slice(0, 2)).toEqual(['home-page', 'home-page-2'])
    for (const entry of entries(doc)) expect(keysOf(entry)).toEqual(LIST_KEYS)
    expectListFields(entries(doc)[0]!, { slug: 'home-page', name: 'Home page', width: 640, height: 360, resource })
    expectListFields(entries(doc)[1]!, { slug: 'home-page-2', name: 'Home page', width: 1, height: 1, resource })
    const page = await app.client.get(widgetsPath(resource), { headers: { range: 'entities=1-1' } })
    expect(slugsOf(xmlOf(page, 200))).toEqual(['home-page-2'])
    expect(page.headers['content-range']).toBe(`entities 1-1/${slugs.length}`)
    const past = await app.client.get(widgetsPath(resource), { headers: { range: 'entities=50-60' } })
    expect(past.status).toBe(200) // an empty page, not 416: clients page until a page is short
    expect(past.headers['content-range']).toBe(`entities */${slugs.length}`)
    const others = slugsOf(xmlOf(await app.client.get(widgetsPath(second)), 200))
    expect(others.length).toBeGreaterThan(0)
    expect(others.filter((slug) => slugs.includes(slug))).toEqual([])
  })

  it('PUT changes only what is sent; an empty theme or behavior clears it; the slug never changes', async () => {
    const slug = await create(resource, { name: 'Sidebar', player_theme: themes[0]!, player_behavior: behaviors[0]! })
    const expected: Expected = {
      slug,
      name: 'Sidebar',
      width: 640,
      height: 360,
      resource,
      theme: themes[0],
      behavior: behaviors[0],
    }
    const put = async (form: Record<string, string>, change: Partial<Expected>) => {
      Object.assign(expected, change)
      expectInfo(xmlOf(await app.client.put(widgetPath(resource, slug), { form }), 200), expected)
      expectInfo(xmlOf(await app.client.get(widgetPath(resource, slug)), 200), expected)
    }
    await put({ name: 'Renamed sidebar' }, { name: 'Renamed sidebar' })
    await put({ size: '300x250' }, { width: 300, height: 250 })
    await put({ player_theme: themes[1]! }, { theme: themes[1] })
    await put({ player_behavior: behaviors[1]! }, { behavior: behaviors[1] })
    await put({ player_theme: '' }, { theme: undefined })
    await put({ player_behavior: ' ' }, { behavior: undefined })
    expect(await storedPlayers(slug)).toEqual([null, null])
    await put({}, {})
    await put(
      { name: 'All at once', size: '320x180', player_theme: themes[0]!, player_behavior: behaviors[0]! },
      { name: 'All at once', width: 320, height: 180, theme: themes[0], behavior: behaviors[0] },
    )
    // Name and size cannot be cleared; nothing changes when one field fails.
    expectError(
      await app.client.put(widgetPath(resource, slug), { form: { name: '', size: '', player_theme: '' } }),
      412,
      INVALID,
      { name: 'cannot be empty', size: 'cannot be empty' },
    )
    expectError(
      await app.client.put(widgetPath(resource, slug), { form: { name: 'Changed', size: '0x1' } }),
      412,
      INVALID,
      { size: 'must have a width and a height from 1 to 7680 pixels, such as 640x360' },
    )
    expectInfo(xmlOf(await app.client.get(widgetPath(resource, slug)), 200), expected)
  })

  it('DELETE answers 204; the widget is gone from its address and the list', async () => {
    const slug = await create(resource, { name: 'Short lived' })
    const res = await app.client.delete(widgetPath(resource, slug))
    expect(res.status).toBe(204)
    expect(res.body).toBe('')
    expectError(await app.client.get(widgetPath(resource, slug)), 404, `No widget "${slug}".`)
    expectError(await app.client.delete(widgetPath(resource, slug)), 404, `No widget "${slug}".`)
    expect(slugsOf(xmlOf(await app.client.get(widgetsPath(resource)), 200))).not.toContain(slug)
  })

  it('a widget under another resource, or a missing resource, answers 404 and changes nothing', async () => {
    const notHere = `No widget "home-page".`
    expectError(await app.client.get(widgetPath(second, 'home-page')), 404, notHere)
    expectError(await app.client.put(widgetPath(second, 'home-page'), { form: { name: 'Hijacked' } }), 404, notHere)
    expectError(await app.client.delete(widgetPath(second, 'home-page')), 404, notHere)
    expect(text(xmlOf(await app.client.get(widgetPath(resource, 'home-page')), 200).widget.name)).toBe('Home page')
    expectError(await app.client.get(widgetsPath('no-such-resource')), 404, 'No resource "no-such-resource".')
    expectError(
      await app.client.post(widgetsPath('no-such-resource'), { form: { name: 'x', size: '1x1' } }),
      404,
      'No resource "no-such-resource".',
    )
    expectError(
      await app.client.get(widgetPath('no-such-resource', 'home-page')),
      404,
      'No resource "no-such-resource".',
    )
  })

  it('a name with ]]> and markup round-trips in the XML, and is escaped in the iframe title', async () => {
    const name = `Evil ]]> <script>alert("x")</script> & 'quoted'`
    const res = await app.client.post(widgetsPath(resource), { form: { name, size: '400x300' } })
    const doc = xmlOf(res, 201)
    const slug = text(doc.widget.slug)
    expect(slug).toMatch(/^[a-z0-9-]+$/)
    expectInfo(doc, { slug, name, width: 400, height: 300, resource })
    expect(res.body).toContain('<name><![CDATA[Evil ]]]]><![CDATA[> <script>')
    const iframe = text(doc.widget.embeds.iframe)
    expect(iframe).not.toContain('<script')
    expect(iframeAttributes(iframe).title).toBe(escaped(name))
    const listed = entries(xmlOf(await app.client.get(widgetsPath(resource)), 200)).find((w) => text(w.slug) === slug)
    expect(text(listed!.name)).toBe(name)
  })

  it('deleting a theme or a behavior leaves the widget without it', async () => {
    const theme = text(
      xmlOf(await app.client.post('/platform/default/player_theme', { form: { name: 'Short-lived theme' } }), 201)
        .player_theme.slug,
    )
    const behavior = text(
      xmlOf(await app.client.post('/platform/default/player_behavior', { form: { name: 'Short-lived behavior' } }), 201)
        .player_behavior.slug,
    )
    const slug = await create(resource, { name: 'Themed widget', player_theme: theme, player_behavior: behavior })
    const expected: Expected = { slug, name: 'Themed widget', width: 640, height: 360, resource, theme, behavior }
    expectInfo(xmlOf(await app.client.get(widgetPath(resource, slug)), 200), expected)
    expect((await app.client.delete(`/platform/default/player_theme/${theme}`)).status).toBe(204)
    expectInfo(xmlOf(await app.client.get(widgetPath(resource, slug)), 200), { ...expected, theme: undefined })
    expect((await app.client.delete(`/platform/default/player_behavior/${behavior}`)).status).toBe(204)
    expectInfo(xmlOf(await app.client.get(widgetPath(resource, slug)), 200), {
      ...expected,
      theme: undefined,
      behavior: undefined,
    })
    expect(await storedPlayers(slug)).toEqual([null, null])
  })

  it('resource.describe gives every widget of each resource, oldest first, with its URL-encoded iframe code', async () => {
    const reader = app.kernel.services.reader
    const views = [
      (await resourceQueries.bySlug(reader, resource))!,
      (await resourceQueries.bySlug(reader, second))!,
      (await resourceQueries.bySlug(reader, await makeResource(app.client, stream, 'Bare')))!,
    ]
    const extras = new Map<number, ResourceExtras>(views.map((view) => [view.id, { widgets: [] }]))
    await app.kernel.services.events.emit('resource.describe', { resources: views, extras })
    for (const view of views) {
      const listed = entries(xmlOf(await app.client.get(widgetsPath(view.slug)), 200))
      const described = extras.get(view.id)!.widgets
      expect(described.map((w) => w.name)).toEqual(listed.map((w) => text(w.name)))
      for (const [i, widget] of described.entries()) {
        const info = xmlOf(await app.client.get(widgetPath(view.slug, text(listed[i]!.slug))), 200)
        expect(decodeURIComponent(widget.code)).toBe(text(info.widget.embeds.iframe))
        expect(widget.code).toBe(encodeURIComponent(text(info.widget.embeds.iframe)))
      }
    }
    expect(extras.get(views[0]!.id)!.widgets.length).toBeGreaterThan(2)
    expect(extras.get(views[2]!.id)!.widgets).toEqual([])
    // The resource's info shows them: one `widget` per widget, named, with the code.
    const info = xmlOf(await app.client.get(`/resource/${resource}`), 200).resource
    expect(info.widgets['@href']).toBe(`${app.url}${widgetsPath(resource)}`)
    expect(list<XmlObject>(info.widgets.widget).map((w) => [w['@name'], text(w)])).toEqual(
      extras.get(views[0]!.id)!.widgets.map((w) => [w.name, w.code]),
    )
    // Nothing to describe: no query, nothing filled.
    await app.kernel.services.events.emit('resource.describe', { resources: [], extras: new Map() })
  })

  it('deleting a resource deletes its widgets, and only its own', async () => {
    const doomed = await makeResource(app.client, stream, 'Doomed')
    const slugs = [await create(doomed, { name: 'Doomed one' }), await create(doomed, { name: 'Doomed two' })]
    const kept = slugsOf(xmlOf(await app.client.get(widgetsPath(resource)), 200))
    const before = await rows()
    expect((await app.client.delete(`/resource/${doomed}`)).status).toBe(204)
    expect(await rows()).toBe(before - 2)
    expect(await app.kernel.em().count(WidgetEntity, { slug: { $in: slugs } })).toBe(0)
    expectError(await app.client.get(widgetsPath(doomed)), 404, `No resource "${doomed}".`)
    expect(slugsOf(xmlOf(await app.client.get(widgetsPath(resource)), 200))).toEqual(kept)
  })

  it('the deleting events act by themselves, inside the transaction, without relying on the foreign keys', async () => {
    const slug = await create(resource, { name: 'Watched', player_theme: themes[0]!, player_behavior: behaviors[0]! })
    const [themeId, behaviorId] = await storedPlayers(slug)
    const view = (await resourceQueries.bySlug(app.kernel.services.reader, resource))!
    const events = app.kernel.services.events
    const rollback = new Error('roll back')
    const outcome = transaction(app.kernel.em(), async (tx) => {
      // Nothing is deleted here: only what the widgets plugin does on each event shows.
      await events.emit('player_theme.deleting', { em: tx, ids: [themeId!] })
      await events.emit('player_behavior.deleting', { em: tx, ids: [behaviorId!] })
      const widget = await tx.findOneOrFail(WidgetEntity, { slug }, { refresh: true })
      expect([widget.playerTheme, widget.playerBehavior]).toEqual([null, null])
      await events.emit('resource.deleting', { em: tx, ids: [view.id] })
      expect(await tx.count(WidgetEntity, { resource: view.id })).toBe(0)
      expect(await tx.count(WidgetEntity, {})).toBeGreaterThan(0)
      throw rollback
    })
    await expect(outcome).rejects.toBe(rollback)
    expect(await storedPlayers(slug)).toEqual([themeId, behaviorId])
    expect((await app.client.delete(widgetPath(resource, slug))).status).toBe(204)
  })

  it('deleting a stream deletes the widgets of its resources', async () => {
    const place = await makePlace(app.client, 'Passing')
    const passing = await makeResource(app.client, place.stream, 'Passing')
    const slug = await create(passing, { name: 'Passing widget' })
    expect((await app.client.delete(`/stream/${place.stream}`)).status).toBe(204)
    expect(await app.kernel.em().count(WidgetEntity, { slug })).toBe(0)
  })

  it('a theme deleted between the check and the write answers 412, and nothing is stored', async () => {
    const view = (await resourceQueries.bySlug(app.kernel.services.reader, resource))!
    const before = await rows()
    const attempt = createWidget(app.kernel.services.reader, app.kernel.em(), view, {
      name: 'Racing',
      size: { width: 2, height: 2 },
      players: { player_theme: 987654 },
    })
    await expect(attempt).rejects.toBeInstanceOf(HttpError)
    await attempt.catch((error: HttpError) => {
      expect(error.status).toBe(412)
      expect(error.fields).toEqual({ player_theme: 'the player theme was deleted meanwhile' })
    })
    expect(await rows()).toBe(before)
  })
})

describe('widgets authorization', () => {
  let stream: string
  let resource: string
  let hidden: string
  let theme: string
  let behavior: string
  const as: Record<string, DigestClient> = {}

  beforeAll(async () => {
    app = await startApp()
    xmlOf(await app.client.post('/platforms', { form: { name: 'Other', max_users: 0, max_space: 0 } }), 201)
    ;({ stream } = await makePlace(app.client, 'Shows'))
    resource = await makeResource(app.client, stream, 'Concert')
    hidden = await makeResource(app.client, stream, 'Rehearsal', 'hidden')
    theme = (await playerSlugs(app.client, 'player_theme'))[0]!
    behavior = (await playerSlugs(app.client, 'player_behavior'))[0]!
    xmlOf(
      await app.client.post(widgetsPath(resource), {
        form: { name: 'Main', size: '640x360', player_theme: theme, player_behavior: behavior },
      }),
      201,
    )
    xmlOf(await app.client.post(widgetsPath(hidden), { form: { name: 'Backstage', size: '640x360' } }), 201)
    // Profiles without player flags, with one, and a user of another platform.
    as.viewer = await userWithFlags(app, 'viewer', ['platform.view'])
    await grantOnStream(app, 'viewer', 'Viewer', stream)
    as.editor = await userWithFlags(app, 'editor', ['platform.view'])
    await grantOnStream(app, 'editor', 'Editor', stream)
    as.themer = await userWithFlags(app, 'themer', ['platform.view', 'player_theme.use'])
    await grantOnStream(app, 'themer', 'Editor', stream)
    as.nobody = await userWithFlags(app, 'nobody', ['platform.view'])
    as.stranger = await app.createUser({ username: 'stranger', platform: 'other' })
  })
  afterAll(async () => app?.close())

  const noResource = (slug: string) => `No resource "${slug}".`

  it('unauthenticated requests answer 401 with a Digest challenge', async () => {
    for (const [method, path] of [
      ['GET', widgetsPath(resource)],
      ['POST', widgetsPath(resource)],
      ['GET', widgetPath(resource, 'main')],
      ['PUT', widgetPath(resource, 'main')],
      ['DELETE', widgetPath(resource, 'main')],
    ] as const) {
      const res = await rawRequest(`${app.url}${path}`, method)
      expect(res.status, `${method} ${path}`).toBe(401)
      expect(String(res.headers['www-authenticate'])).toMatch(/^Digest /)
    }
    expect(text(xmlOf(await app.client.get(widgetPath(resource, 'main')), 200).widget.name)).toBe('Main')
  })

  it('a viewer of the stream reads the widgets, and gets 403 on every change', async () => {
    const viewer = as.viewer!
    expect(slugsOf(xmlOf(await viewer.get(widgetsPath(resource)), 200))).toEqual(['main'])
    expect(text(xmlOf(await viewer.get(widgetPath(resource, 'main')), 200).widget.name)).toBe('Main')
    const denied = 'This needs the "resource.edit" permission.'
    expectError(await viewer.post(widgetsPath(resource), { form: { name: 'Mine', size: '1x1' } }), 403, denied)
    expectError(await viewer.put(widgetPath(resource, 'main'), { form: { name: 'Mine' } }), 403, denied)
    expectError(await viewer.delete(widgetPath(resource, 'main')), 403, denied)
    expect(slugsOf(xmlOf(await app.client.get(widgetsPath(resource)), 200))).toEqual(['main'])
    expect(text(xmlOf(await app.client.get(widgetPath(resource, 'main')), 200).widget.name)).toBe('Main')
  })

  it('a hidden resource is not seen without resource.view_protected (404), and is with it', async () => {
    const viewer = as.viewer!
    expectError(await viewer.get(widgetsPath(hidden)), 404, noResource(hidden))
    expectError(await viewer.get(widgetPath(hidden, 'backstage')), 404, noResource(hidden))
    expect(slugsOf(xmlOf(await as.editor!.get(widgetsPath(hidden)), 200))).toEqual(['backstage'])
  })

  it('setting a theme needs player_theme.use, a behavior player_behavior.use (403, nothing stored); clearing needs neither', async () => {
    const editor = as.editor!
    const before = await rows()
    const needsTheme = NEEDS('player_theme.use')
    const needsBehavior = NEEDS('player_behavior.use')
    // The flag is checked before the fields: an unknown slug answers 403 too.
    for (const [form, message] of [
      [{ player_theme: theme }, needsTheme],
      [{ player_theme: 'no-such-theme' }, needsTheme],
      [{ player_behavior: behavior }, needsBehavior],
    ] as const) {
      expectError(await editor.post(widgetsPath(resource), { form: { name: 'E', size: '2x2', ...form } }), 403, message)
      expectError(await editor.put(widgetPath(resource, 'main'), { form }), 403, message)
    }
    expect(await rows()).toBe(before)
    const slug = text(
      xmlOf(await editor.post(widgetsPath(resource), { form: { name: 'Plain', size: '2x2' } }), 201).widget.slug,
    )
    const node = xmlOf(
      await editor.put(widgetPath(resource, 'main'), { form: { name: 'Edited', player_theme: '' } }),
      200,
    ).widget
    expect(text(node.name)).toBe('Edited')
    expect(node.player_theme).toBe('')
    expect(node.player_behavior).toEqual({ '@href': `${app.url}/platform/default/player_behavior/${behavior}` })
    // With player_theme.use only: the theme passes, a behavior does not.
    const themer = as.themer!
    const themed = xmlOf(await themer.put(widgetPath(resource, slug), { form: { player_theme: theme } }), 200).widget
    expect(themed.player_theme).toEqual({ '@href': `${app.url}/platform/default/player_theme/${theme}` })
    expectError(
      await themer.post(widgetsPath(resource), {
        form: { name: 'T', size: '2x2', player_theme: theme, player_behavior: behavior },
      }),
      403,
      needsBehavior,
    )
    expect((await editor.delete(widgetPath(resource, slug))).status).toBe(204)
  })

  it('a user without access, and a user of another platform, get 404 everywhere', async () => {
    for (const client of [as.nobody!, as.stranger!]) {
      const answers: Response[] = [
        await client.get(widgetsPath(resource)),
        await client.post(widgetsPath(resource), { form: { name: 'Intruder', size: '1x1' } }),
        await client.get(widgetPath(resource, 'main')),
        await client.put(widgetPath(resource, 'main'), { form: { name: 'Intruder' } }),
        await client.delete(widgetPath(resource, 'main')),
      ]
      for (const res of answers) expectError(res, 404, noResource(resource))
    }
    expect(text(xmlOf(await app.client.get(widgetPath(resource, 'main')), 200).widget.name)).toBe('Edited')
  })
})
