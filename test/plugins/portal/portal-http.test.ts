import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PORTAL_STYLE, PORTAL_STYLE_FILE } from '../../../plugins/portal/portal.style.js'
import type { TestApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { getBytes, pathOf, startEncodingApp } from '../encoding/encoding.helpers.js'
import {
  HTML_TYPE,
  XSS,
  browse,
  createMedia,
  createStream,
  encodedVideo,
  linksOf,
  publish,
  setWebChannel,
} from './portal.fixtures.js'

/** The media portal over plain HTTP: host-based routing, links, escaping, what is public, looks, headers. */

const DOMAIN = 'tv.portal.test'
const DESCRIPTION = `${XSS}\nWelcome to our channel.\n\nSecond paragraph & more.`
const RESOURCE_DESCRIPTION = 'First line\nsecond line <b>not bold</b>\n\nAnother paragraph'

/** Checks a page answer: status, type, and the headers every portal page carries. */
function expectPage(res: Response, status: number): string {
  expect(res.status, res.body.slice(0, 400)).toBe(status)
  expect(res.headers['content-type']).toBe(HTML_TYPE)
  expect(res.headers['x-content-type-options']).toBe('nosniff')
  expect(res.headers['x-frame-options']).toBe('SAMEORIGIN')
  return res.body
}

/** The class list of `<html>`. */
const lookOf = (body: string): string => /<html lang="en" class="([^"]*)">/.exec(body)?.[1] ?? ''

describe('the media portal over HTTP', () => {
  let app: TestApp
  let admin: DigestClient
  let media: string
  let other: string
  let closed: string
  const s: Record<string, string> = {}
  const r: Record<string, string> = {}

  beforeAll(async () => {
    app = await startEncodingApp({
      config: { portal: { host_cache_ttl: 0, streams_per_page: 2, latest_per_stream: 2, resources_per_page: 2 } },
    })
    admin = app.client
    media = await createMedia(admin, 'Portal TV', DOMAIN, DESCRIPTION)
    other = await createMedia(admin, 'Other TV', 'other.portal.test')
    closed = await createMedia(admin, 'Closed TV', 'closed.portal.test')
    const file = await encodedVideo(admin)

    s.news = await createStream(admin, media, { title: 'News', subtitle: 'Every day' })
    s.local = await createStream(admin, media, { title: 'Local news', parent_stream: s.news })
    s.secret = await createStream(admin, media, { title: 'Secret', visibility: 'hidden' })
    s.buried = await createStream(admin, media, { title: 'Buried', parent_stream: s.secret })
    s.draft = await createStream(admin, media, { title: 'Drafts', visibility: 'draft' })
    s.sport = await createStream(admin, media, { title: 'Sport' })
    s.music = await createStream(admin, media, { title: 'Music' })
    s.elsewhere = await createStream(admin, other, { title: 'Elsewhere' })
    s.closedStream = await createStream(admin, closed, { title: 'Closed stream' })

    r.first = await publish(admin, s.news, file, {
      title: 'Episode 1',
      subtitle: 'The start',
      description: RESOURCE_DESCRIPTION,
      published_at: '2026-03-12T10:00:00Z',
    })
    r.xss = await publish(admin, s.news, file, { title: XSS })
    r.third = await publish(admin, s.news, file, { title: 'Episode 3' })
    r.hidden = await publish(admin, s.news, file, { title: 'Hidden one', visibility: 'hidden' })
    r.draft = await publish(admin, s.news, file, { title: 'Draft one', visibility: 'draft' })
    r.local = await publish(admin, s.local, file, { title: 'Local 1' })
    r.buried = await publish(admin, s.buried, file, { title: 'Buried 1' })
    r.inDraft = await publish(admin, s.draft, file, { title: 'In a draft stream' })
    r.sport = await publish(admin, s.sport, file, { title: 'Match' })
    r.music = await publish(admin, s.music, file, { title: 'Concert' })
    r.elsewhere = await publish(admin, s.elsewhere, file, { title: 'Elsewhere 1' })
    r.closed = await publish(admin, s.closedStream, file, { title: 'Closed 1' })
    await setWebChannel(admin, closed, { is_online: '0' })
  })

  afterAll(async () => app?.close())

  describe('host-based routing', () => {
    it("serves the home page at / of the media's own domain, with links from /", async () => {
      const body = expectPage(await browse(app, '/', DOMAIN), 200)
      expect(body).toContain('<h1>Portal TV</h1>')
      const links = linksOf(body)
      expect(links).toContain('/')
      expect(links).toContain(`/stream/${s.news}`)
      expect(links).toContain(`/stream/${s.local}`)
      expect(links).toContain(`/resource/${r.third}`)
      expect(links).toContain(`/?page=2`)
      expect(links.filter((l) => l.startsWith('/portal/'))).toEqual([])
      expect(body).toContain(`<link rel="stylesheet" href="/assets/${PORTAL_STYLE_FILE}">`)
    })

    it("serves stream and resource pages under the media's domain, and the host's case and port do not matter", async () => {
      const stream = expectPage(await browse(app, `/stream/${s.news}`, 'TV.Portal.Test'), 200)
      expect(stream).toContain('<h1>News</h1>')
      expect(linksOf(stream)).toContain(`/resource/${r.third}`)
      const resource = expectPage(await browse(app, `/resource/${r.first}`, DOMAIN), 200)
      expect(resource).toContain('<h1 id="resource-title">Episode 1</h1>')
      expect(linksOf(resource)).toEqual(expect.arrayContaining(['/', `/stream/${s.news}`]))
    })

    it('serves the same pages through the path fallback, with links under /portal/<media>', async () => {
      const body = expectPage(await browse(app, `/portal/${media}`), 200)
      expect(body).toContain('<h1>Portal TV</h1>')
      const links = linksOf(body)
      expect(links).toContain(`/portal/${media}`)
      expect(links).toContain(`/portal/${media}/stream/${s.news}`)
      expect(links).toContain(`/portal/${media}/resource/${r.third}`)
      expect(links).toContain(`/portal/${media}?page=2`)
      expect(body).toContain(`<link rel="stylesheet" href="/portal/${media}/assets/${PORTAL_STYLE_FILE}">`)
      const stream = expectPage(await browse(app, `/portal/${media}/stream/${s.local}`), 200)
      expect(linksOf(stream)).toEqual(
        expect.arrayContaining([
          `/portal/${media}`,
          `/portal/${media}/stream/${s.news}`,
          `/portal/${media}/resource/${r.local}`,
        ]),
      )
      // Any other host name not mapped to a media reaches the fallback too.
      expectPage(await browse(app, `/portal/${media}`, 'unknown.example'), 200)
    })

    it('answers an unknown host name as the API does (401 without credentials), and API paths on a portal domain with the portal 404', async () => {
      const root = await rawRequest(app.url + '/', 'GET', { headers: { host: 'unknown.example' } })
      expect(root.status).toBe(401)
      expect(root.headers['www-authenticate']).toMatch(/^Digest /)
      const platforms = await rawRequest(app.url + '/platforms', 'GET', { headers: { host: 'unknown.example' } })
      expect(platforms.status).toBe(401)
      // The API's own host is untouched: a page path there is the path fallback, an API path is the API.
      expect((await rawRequest(app.url + '/platforms', 'GET')).status).toBe(401)
      const apiOnPortal = await browse(app, '/platforms', DOMAIN)
      const body = expectPage(apiOnPortal, 404)
      expect(body).toContain('<h1>Not found</h1>')
      expect(apiOnPortal.headers['www-authenticate']).toBeUndefined()
    })

    it('follows a change of domain at once when the host cache is off (host_cache_ttl: 0)', async () => {
      const res = await admin.put(`/media/${other}`, { form: { domain: 'new.portal.test' } })
      expect(res.status, res.body).toBeLessThan(300)
      expectPage(await browse(app, '/', 'new.portal.test'), 200)
      expect((await browse(app, '/', 'other.portal.test')).status).toBe(401)
    })
  })

  describe('content', () => {
    it('shows the visible streams, nested, with their latest visible resources, newest first', async () => {
      const body = expectPage(await browse(app, '/', DOMAIN), 200)
      // Page 1: the first two top-level visible streams (News with Local news inside, then Sport).
      expect(body).toMatch(/<h2 id="stream-news"><a href="\/stream\/news">News<\/a><\/h2>/)
      expect(body).toMatch(new RegExp(`<h3 id="stream-${s.local}"><a href="/stream/${s.local}">Local news</a></h3>`))
      const newsSection = body.slice(body.indexOf('id="stream-news"'), body.indexOf(`id="stream-${s.sport}"`))
      expect(newsSection).toContain(`id="stream-${s.local}"`)
      // The latest two of News: Episode 3, then the XSS one; a link to all three.
      const order = [r.third, r.xss].map((slug) => newsSection.indexOf(`/resource/${slug}"`))
      expect(order[0]).toBeGreaterThan(0)
      expect(order[1]).toBeGreaterThan(order[0]!)
      expect(newsSection).not.toContain(`/resource/${r.first}"`)
      expect(newsSection).toContain(`<a href="/stream/${s.news}">All 3 in News</a>`)
      expect(body).toContain('Match')
      expect(body).not.toContain('Concert')
      for (const hidden of ['Secret', 'Buried', 'Drafts', 'Hidden one', 'Draft one', 'Elsewhere']) {
        expect(body).not.toContain(hidden)
      }
      // Thumbnails: alt text is the title; the URL carries a resource token and opens without credentials.
      const thumb = /<img class="thumb" src="([^"]+)" alt="Episode 3"/.exec(body)
      expect(thumb).not.toBeNull()
      const src = thumb![1]!.replace(/&#38;/g, '&')
      expect(src).toMatch(new RegExp(`^${app.url}/resource/${r.third}/thumbnail/thumb\\.jpg\\?v=\\d+&token=`))
      const image = await getBytes(app.url, pathOf(src))
      expect(image.status).toBe(200)
      expect(image.body.subarray(0, 3).toString('hex')).toBe('ffd8ff')
      expect(body).toMatch(/<span class="visually-hidden">Duration: <\/span><time datetime="PT3(\.\d+)?S">0:03<\/time>/)
    })

    it('pages the top-level streams with ?page=, and answers 404 past the end or for a bad page', async () => {
      const second = expectPage(await browse(app, '/?page=2', DOMAIN), 200)
      expect(second).toContain('Concert')
      expect(second).not.toContain('Match')
      expect(second).toContain('Page 2 of 2')
      expect(linksOf(second)).toContain('/')
      expect(second).toContain('<a rel="prev" href="/">Previous page</a>')
      for (const bad of ['3', '0', 'x', '-1']) {
        const body = expectPage(await browse(app, `/?page=${bad}`, DOMAIN), 404)
        expect(body).toContain('<h1>Not found</h1>')
      }
    })

    it('shows a stream page: its visible resources paged newest first, its visible sub-streams', async () => {
      const first = expectPage(await browse(app, `/portal/${media}/stream/${s.news}`), 200)
      expect(first).toContain('<p class="lead">Every day</p>')
      // The header's navigation marks the stream as the current page.
      expect(first).toContain(`<li><a href="/portal/${media}/stream/${s.news}" aria-current="page">News</a></li>`)
      expect(first).toContain(`<a href="/portal/${media}/stream/${s.local}">Local news</a>`)
      expect(first).toContain(`/resource/${r.third}"`)
      expect(first).toContain(`/resource/${r.xss}"`)
      expect(first).not.toContain(`/resource/${r.first}"`)
      expect(first).toContain(`<a rel="next" href="/portal/${media}/stream/${s.news}?page=2">Next page</a>`)
      const second = expectPage(await browse(app, `/portal/${media}/stream/${s.news}?page=2`), 200)
      expect(second).toContain(`/resource/${r.first}"`)
      expect(second).not.toContain('Hidden one')
      expect(second).not.toContain('Draft one')
      expect((await browse(app, `/portal/${media}/stream/${s.news}?page=3`)).status).toBe(404)
      // Breadcrumbs of a sub-stream: home, then its parent.
      const local = expectPage(await browse(app, `/stream/${s.local}`, DOMAIN), 200)
      // A sub-stream's page is in its top-level stream's section, not that stream's page.
      expect(local).toContain(`<li><a href="/stream/${s.news}" aria-current="true">News</a></li>`)
      expect(local).toContain(
        `<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/">Home</a></li><li><a href="/stream/${s.news}">News</a></li><li><span aria-current="page">Local news</span></li></ol></nav>`,
      )
    })

    it('shows a resource page: title, subtitle, description as text, date, duration, subtitles, the player', async () => {
      const body = expectPage(await browse(app, `/resource/${r.first}`, DOMAIN), 200)
      expect(body).toContain('<p class="lead">The start</p>')
      expect(body).toContain(
        `<iframe src="${app.url}/player/${r.first}" allow="autoplay; fullscreen; picture-in-picture" allowfullscreen title="Player: Episode 1"></iframe>`,
      )
      expect(body).toContain(
        '<dt>Published</dt><dd><time datetime="2026-03-12T10:00:00.000Z">12 March 2026</time></dd>',
      )
      expect(body).toMatch(/<dt>Duration<\/dt><dd><time datetime="PT3(\.\d+)?S">0:03<\/time><\/dd>/)
      expect(body).toContain(
        '<dt>Subtitles</dt><dd><ul class="languages"><li><span lang="fr">French</span></li></ul></dd>',
      )
      expect(body).toContain(
        '<div class="text"><p>First line<br>second line &#60;b&#62;not bold&#60;/b&#62;</p><p>Another paragraph</p></div>',
      )
      expect(body).not.toContain('<b>')
    })

    it('escapes titles and descriptions: markup shows as text and no script is ever sent', async () => {
      const escaped = '&#60;script&#62;alert(1)&#60;/script&#62;'
      const home = expectPage(await browse(app, '/', DOMAIN), 200)
      expect(home).toContain(
        `<div class="text"><p>${escaped}<br>Welcome to our channel.</p><p>Second paragraph &#38; more.</p></div>`,
      )
      expect(home).toContain(`<span class="card-title">${escaped}</span>`)
      expect(home).toContain(`alt="${escaped}"`)
      const page = expectPage(await browse(app, `/resource/${r.xss}`, DOMAIN), 200)
      expect(page).toContain(`<h1 id="resource-title">${escaped}</h1>`)
      expect(page).toContain(`<title>${escaped} · Portal TV</title>`)
      expect(page).toContain(`title="Player: ${escaped}"`)
      for (const body of [home, page]) expect(body).not.toMatch(/<script/i)
    })
  })

  describe('what is not public answers the 404 page', () => {
    it('hidden, draft, below a hidden stream, of another media, unknown: the portal 404 page', async () => {
      const paths = [
        `/resource/${r.hidden}`,
        `/resource/${r.draft}`,
        `/resource/${r.buried}`,
        `/resource/${r.inDraft}`,
        `/resource/${r.elsewhere}`,
        '/resource/no-such-thing',
        `/stream/${s.secret}`,
        `/stream/${s.buried}`,
        `/stream/${s.draft}`,
        `/stream/${s.elsewhere}`,
        '/stream/no-such-thing',
        '/nothing/here',
      ]
      for (const path of paths) {
        for (const [prefix, host] of [
          ['', DOMAIN],
          [`/portal/${media}`, undefined],
        ] as const) {
          const res = await browse(app, `${prefix}${path}`, host)
          const body = expectPage(res, 404)
          expect(body, path).toContain('<h1>Not found</h1>')
          expect(body).toContain(`<a href="${prefix || '/'}">Back to the home page of Portal TV</a>`)
          expect(res.headers['cache-control']).toBe('no-store')
          for (const secret of ['Hidden one', 'Draft one', 'Buried', 'Elsewhere 1']) expect(body).not.toContain(secret)
        }
      }
    })

    it('a media whose web channel is offline, or an unknown media: 404 for every portal address', async () => {
      const paths = [
        `/portal/${closed}`,
        `/portal/${closed}/stream/${s.closedStream}`,
        `/portal/${closed}/resource/${r.closed}`,
        `/portal/${closed}/assets/${PORTAL_STYLE_FILE}`,
        `/portal/${closed}/anything`,
        '/portal/no-such-media',
        `/portal/no-such-media/resource/${r.first}`,
      ]
      for (const path of paths) {
        const body = expectPage(await browse(app, path), 404)
        expect(body, path).toContain('There is no media portal at this address.')
        expect(body).not.toContain('Closed')
      }
      const onDomain = expectPage(await browse(app, '/', 'closed.portal.test'), 404)
      expect(onDomain).toContain('There is no media portal at this address.')
      // Back online: the portal opens.
      await setWebChannel(admin, closed, { is_online: '1' })
      expectPage(await browse(app, '/', 'closed.portal.test'), 200)
      await setWebChannel(admin, closed, { is_online: '0' })
    })
  })

  describe('look and headers', () => {
    it('uses the web channel theme and skin as classes, classic and light by default or when unknown', async () => {
      expect(lookOf(expectPage(await browse(app, '/', DOMAIN), 200))).toBe('theme-classic skin-light')
      await setWebChannel(admin, media, { theme: 'cinema', skin: 'dark' })
      expect(lookOf(expectPage(await browse(app, '/', DOMAIN), 200))).toBe('theme-cinema skin-dark')
      await setWebChannel(admin, media, { theme: 'Classic', skin: 'BLUE' })
      expect(lookOf(expectPage(await browse(app, '/', DOMAIN), 200))).toBe('theme-classic skin-blue')
      await setWebChannel(admin, media, { theme: 'neon', skin: 'purple' })
      expect(lookOf(expectPage(await browse(app, `/resource/${r.first}`, DOMAIN), 200))).toBe(
        'theme-classic skin-light',
      )
      await setWebChannel(admin, media, { theme: '', skin: '' })
    })

    it('sends pages cacheable for a minute, with a CSP without scripts that lets the player and thumbnails in', async () => {
      const res = await browse(app, '/', DOMAIN)
      expectPage(res, 200)
      expect(res.headers['cache-control']).toBe('public, max-age=60')
      const csp = String(res.headers['content-security-policy'])
      expect(csp).toContain("script-src 'none'")
      expect(csp).toContain(`frame-src ${app.url}`)
      expect(csp).toContain(`img-src 'self' data: ${app.url}`)
      expect(csp).toContain("frame-ancestors 'self'")
      expect(res.body).toMatch(/^<!doctype html>\n<html lang="en"/)
      expect(res.body).toContain('<a class="skip-link" href="#main">Skip to content</a>')
      for (const landmark of [
        '<header class="site-header">',
        '<nav class="site-nav" aria-label="Main">',
        '<main id="main"',
        '<footer class="site-footer">',
      ]) {
        expect(res.body).toContain(landmark)
      }
    })

    it('serves the stylesheet under its content hash, cached forever, gzipped when asked', async () => {
      const path = `/assets/${PORTAL_STYLE_FILE}`
      const plain = await rawRequest(app.url + path, 'GET', { headers: { host: `${DOMAIN}:${new URL(app.url).port}` } })
      expect(plain.status).toBe(200)
      expect(plain.headers['content-type']).toBe('text/css; charset=utf-8')
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      expect(plain.body).toBe(PORTAL_STYLE)
      const zipped = await getBytes(app.url, `/portal/${media}${path}`, { 'accept-encoding': 'gzip, br' })
      expect(zipped.status).toBe(200)
      expect(zipped.headers['content-encoding']).toBe('gzip')
      expect(zipped.headers.vary).toBe('Accept-Encoding')
      expect(zipped.body.length).toBeLessThan(PORTAL_STYLE.length / 2)
      // An older hash (a page cached before an upgrade) still gets the current stylesheet, briefly cached.
      const old = await getBytes(app.url, `/portal/${media}/assets/portal.0123456789abcdef.css`)
      expect(old.status).toBe(200)
      expect(old.headers['cache-control']).toBe('public, max-age=60')
      expect((await browse(app, `/portal/${media}/assets/other.css`)).status).toBe(404)
    })
  })
})
