import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VIEW_TOKEN_PURPOSE, viewToken } from '../../../plugins/player/index.js'
import { RESOURCE_TOKEN_PURPOSE, resourceToken } from '../../../plugins/resources/index.js'
import { browserScript, signToken, tokensWith } from '../../../src/kernel/index.js'
import type { TestApp } from '../../helpers/app.js'
import { rawRequest } from '../../helpers/digest-client.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'
import { getBytes, pathOf, startEncodingApp } from '../encoding/encoding.helpers.js'
import { createStream, published } from '../resources/resources.helpers.js'
import {
  EVIL_TITLE,
  type Published,
  browse,
  configOf,
  cspOf,
  expectErrorPage,
  playerUrl,
  publishVideo,
  resourceInfo,
  viewsOf,
} from './player.helpers.js'

/** The player's routes over plain HTTP: pages, access rules, headers, the JavaScript embed, assets, views. */
describe('player: pages, access, headers, embeds and views over HTTP', () => {
  let app: TestApp
  let pub: Published
  let secret: string
  const page = (path: string, headers: Record<string, string> = {}) => browse(`${app.url}${path}`, headers)
  const idOf = async (slug: string) => {
    const rows = await app.kernel.em().execute<{ id: number }[]>('select id from resources where slug = ?', [slug])
    return Number(rows[0]!.id)
  }

  beforeAll(async () => {
    // Views written at once: the count is read right after each play (batches: view-counter.test.ts).
    app = await startEncodingApp({ config: { resources: { views_flush_ms: 0 } } })
    pub = await publishVideo(app)
    secret = app.kernel.services.secret
  })
  afterAll(async () => app?.close())

  describe('the page of a visible resource', () => {
    it('is a public page with the poster, the MP4 ladder, the subtitles and the scripts, its media tokenized', async () => {
      const res = await page(`/player/${pub.visible}`)
      expect(res.status, res.body.slice(0, 300)).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      const body = res.body
      const base = `${app.url}/resource/${pub.visible}`
      expect(body).toMatch(
        new RegExp(
          `<video id="video" playsinline preload="none" poster="${base}/thumbnail/thumb\\.jpg\\?v=\\d+&#38;token=[\\w.-]+" controls>`,
        ),
      )
      expect(body).toMatch(
        new RegExp(`<source src="${base}/flavor/video/240p\\.mp4\\?token=[\\w.-]+" type="video/mp4">`),
      )
      expect(body).toMatch(
        new RegExp(`<source src="${base}/flavor/video/120p\\.mp4\\?token=[\\w.-]+" type="video/mp4">`),
      )
      expect(body).toMatch(
        new RegExp(
          `<track kind="subtitles" srclang="fr" label="French" src="${base}/subtitles/[0-9a-f]{40}\\.fr\\.srt\\?token=[\\w.-]+">`,
        ),
      )
      expect(body).toContain(`<script src="${app.url}/player/assets/hls-`)
      expect(body).toMatch(
        new RegExp(`<script src="${app.url}/player/assets/player-[0-9a-f]{16}\\.js" defer></script>`),
      )
      expect(body).not.toMatch(/<script>|<script(?![^>]*(?:src=|type="application\/json"))/)
      expect(body).toContain('<title>Lecture 1</title>')
      const config = configOf(body)
      expect(config).toMatchObject({
        resource: pub.visible,
        widget: null,
        autoplay: false,
        startTime: 0,
        subtitles: null,
      })
      expect(config.hls).toMatch(new RegExp(`^${base}/hls/master\\.m3u8\\?token=`))
      expect(config.views).toMatch(new RegExp(`^${app.url}/player/${pub.visible}/views\\?token=`))
      expect(Number(config.duration)).toBeGreaterThan(2.5)
      // The default look: the Light theme.
      expect(body).toContain(':root{--bg:#ffffff;--fg:#1a1a1a;--accent:#0066cc}')
    })

    it('sends a CSP that allows framing anywhere and only its own scripts, media and workers from blob:, and no referrer', async () => {
      const res = await page(`/player/${pub.visible}`)
      const csp = cspOf(res)
      const self = `'self' ${app.url}`
      expect(csp).toMatchObject({
        'default-src': "'none'",
        'script-src': self,
        'media-src': `${self} blob:`,
        'worker-src': 'blob:',
        'img-src': `${self} data:`,
        'connect-src': self,
        'frame-ancestors': '*',
        'base-uri': "'none'",
        'form-action': "'none'",
      })
      expect(csp['script-src']).not.toContain('unsafe')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['x-frame-options']).toBeUndefined()
      expect(res.headers['referrer-policy']).toBe('no-referrer')
      expect(res.headers['cache-control']).toBe('no-store')
    })

    it('gives media URLs that work without credentials: the poster, the WebVTT, HLS and the MP4s', async () => {
      const body = (await page(`/player/${pub.visible}`)).body
      const config = configOf(body)
      const poster = /poster="([^"]+)"/.exec(body)![1]!.replace(/&#38;/g, '&')
      expect((await getBytes(app.url, pathOf(poster))).body.subarray(0, 3).toString('hex')).toBe('ffd8ff')
      const vtt = /<track [^>]*src="([^"]+)"/.exec(body)![1]!
      expect((await getBytes(app.url, pathOf(vtt))).body.toString()).toMatch(/^WEBVTT[\s\S]*Bonjour tout le monde/)
      const master = await getBytes(app.url, pathOf(String(config.hls)))
      expect(master.status).toBe(200)
      const variant = master.body
        .toString()
        .split('\n')
        .find((line) => line && !line.startsWith('#'))!
      expect(variant).toContain('token=')
      const mp4 = (config.sources as { url: string; type: string; height: number }[])[0]!
      expect(mp4).toMatchObject({ type: 'video/mp4', height: 240 })
      expect((await getBytes(app.url, pathOf(mp4.url), { range: 'bytes=0-99' })).status).toBe(206)
    })

    it('is what the players element of resource info points at', async () => {
      expect(await playerUrl(app, pub.visible)).toBe(`${app.url}/player/${pub.visible}`)
    })
  })

  describe('themes and behaviors', () => {
    it('takes ?theme= and ?behavior= of the platform: colors, autoplay always muted', async () => {
      const body = (
        await page(`/player/${pub.visible}?theme=${pub.themes.Dark}&behavior=${pub.behaviors['Autoplay muted']}`)
      ).body
      expect(body).toContain(':root{--bg:#121212;--fg:#f5f5f5;--accent:#4da3ff}')
      expect(body).toMatch(/<video id="video" playsinline preload="none" poster="[^"]+" controls muted>/)
      expect(configOf(body)).toMatchObject({ autoplay: true })
    })

    it('falls back to the defaults for an unknown slug and for a theme of another platform', async () => {
      const other = xmlOf(
        await app.client.post('/platforms', { form: { name: 'Elsewhere', max_users: 0, max_space: 0 } }),
        201,
      )
      const slug = text(other.platform.slug)
      const themes = list<XmlObject>(
        xmlOf(await app.client.get(`/platform/${slug}/player_theme`), 200).player_themes.player_theme,
      )
      const foreignDark = text(themes.find((t) => text(t.name) === 'Dark')!.slug)
      for (const theme of ['no-such-theme', foreignDark]) {
        const body = (await page(`/player/${pub.visible}?theme=${theme}&behavior=nothing`)).body
        expect(body).toContain(':root{--bg:#ffffff;--fg:#1a1a1a;--accent:#0066cc}')
        expect(configOf(body)).toMatchObject({ autoplay: false })
      }
    })

    it('applies controls, loop, start time, subtitles on in the chosen language, and the logo at its position', async () => {
      const behavior = xmlOf(
        await app.client.post('/platform/default/player_behavior', {
          form: { name: 'Lecture hall', controls: 0, loop: 1, start_time: 1, subtitles_on: 1, subtitle_language: 'fr' },
        }),
        201,
      )
      const theme = xmlOf(
        await app.client.post('/platform/default/player_theme', {
          form: {
            name: 'Branded',
            background_color: '#102030',
            text_color: '#fafafa',
            accent_color: '#ff8800',
            logo_url: 'https://cdn.example.org/brand/logo.png',
            logo_position: 'bottom-left',
          },
        }),
        201,
      )
      const res = await page(
        `/player/${pub.visible}?theme=${text(theme.player_theme.slug)}&behavior=${text(behavior.player_behavior.slug)}`,
      )
      expect(res.body).toMatch(/<video id="video" playsinline preload="none" poster="[^"]+" loop>/)
      expect(res.body).toMatch(/<track kind="subtitles" srclang="fr" label="French" src="[^"]+" default>/)
      expect(res.body).toContain(
        '<img class="logo logo-bottom-left" src="https://cdn.example.org/brand/logo.png" alt="" referrerpolicy="no-referrer">',
      )
      expect(res.body).toContain(':root{--bg:#102030;--fg:#fafafa;--accent:#ff8800}')
      expect(configOf(res.body)).toMatchObject({ startTime: 1, subtitles: 0 })
      expect(cspOf(res)['img-src']).toBe(`'self' ${app.url} data: https://cdn.example.org`)
    })

    it("gives a widget's page its theme, behavior and size", async () => {
      const res = await page(`/embed/${pub.widget}`)
      expect(res.status).toBe(200)
      expect(res.body).toContain(':root{--bg:#121212;--fg:#f5f5f5;--accent:#4da3ff}')
      expect(res.body).toContain('.player{max-width:640px;max-height:360px}')
      expect(configOf(res.body)).toMatchObject({ widget: pub.widget, resource: pub.visible, autoplay: true })
      expect(cspOf(res)['frame-ancestors']).toBe('*')
      expect(res.headers['x-frame-options']).toBeUndefined()
    })
  })

  describe('access', () => {
    it('plays a hidden resource, or a visible one in a hidden stream, only with a token for it', async () => {
      for (const slug of [pub.hidden, pub.inHiddenStream]) {
        expectErrorPage(await page(`/player/${slug}`), 404)
        const url = await playerUrl(app, slug, true)
        expect(url).toMatch(new RegExp(`/player/${slug}\\?token=`))
        const res = await browse(url)
        expect(res.status).toBe(200)
        expect(configOf(res.body).resource).toBe(slug)
        // Its media links carry fresh tokens of their own.
        expect(res.body).toMatch(new RegExp(`/resource/${slug}/flavor/video/240p\\.mp4\\?token=`))
      }
    })

    it('never plays a draft, even with a token for it', async () => {
      expectErrorPage(await page(`/player/${pub.draft}`), 404)
      expectErrorPage(await browse(await playerUrl(app, pub.draft, true)), 404)
    })

    it('refuses a token of another resource (403), a tampered one (401) and an expired one (403)', async () => {
      const other = new URL(await playerUrl(app, pub.hidden, true)).searchParams.get('token')!
      const refused = await page(`/player/${pub.visible}?token=${other}`)
      expectErrorPage(refused, 403)
      expect(refused.body).toContain('opens another resource')

      const good = new URL(await playerUrl(app, pub.hidden, true)).searchParams.get('token')!
      const [body, mac] = good.split('.') as [string, string]
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>
      const forgedBody = Buffer.from(JSON.stringify({ ...payload, exp: Number(payload.exp) + 86400 })).toString(
        'base64url',
      )
      for (const tampered of [`${forgedBody}.${mac}`, `${body}.${mac.slice(0, -2)}xx`, 'garbage']) {
        expectErrorPage(await page(`/player/${pub.hidden}?token=${tampered}`), 401)
      }
      const expired = signToken(
        secret,
        RESOURCE_TOKEN_PURPOSE,
        { r: await idOf(pub.hidden), s: pub.hidden },
        new Date(Date.now() - 1000),
      )
      const res = await page(`/player/${pub.hidden}?token=${expired}`)
      expectErrorPage(res, 403)
      expect(res.body).toContain('expired')
    })

    it('answers a framable 404 page for an unknown resource or widget', async () => {
      for (const path of ['/player/no-such-thing', '/embed/no-such-widget']) {
        const res = await page(path)
        expectErrorPage(res, 404)
        expect(cspOf(res)['frame-ancestors']).toBe('*')
        expect(res.headers['x-content-type-options']).toBe('nosniff')
      }
      expect((await page('/player/no-such-thing')).body).toContain('No resource &#34;no-such-thing&#34;')
      expect((await page('/embed/no-such-widget')).body).toContain('No widget &#34;no-such-widget&#34;')
    })

    it('applies the same rules to the widgets of hidden and draft resources', async () => {
      const widgetOf = async (resource: string) =>
        text(
          xmlOf(await app.client.post(`/resource/${resource}/widgets`, { form: { name: 'W', size: '320x180' } }), 201)
            .widget.slug,
        )
      const hidden = await widgetOf(pub.hidden)
      const draft = await widgetOf(pub.draft)
      expectErrorPage(await page(`/embed/${hidden}`), 404)
      const token = new URL(await playerUrl(app, pub.hidden, true)).searchParams.get('token')!
      expect((await page(`/embed/${hidden}?token=${token}`)).status).toBe(200)
      const draftToken = new URL(await playerUrl(app, pub.draft, true)).searchParams.get('token')!
      expectErrorPage(await page(`/embed/${draft}?token=${draftToken}`), 404)
      // The JavaScript embed too: 404 (a script comment) without the token, the token passed on to the frame with it.
      const script = await rawRequest(`${app.url}/embed/${hidden}.js`, 'GET')
      expect(script.status).toBe(404)
      expect(script.body).toBe(`/* mediactl: No resource "${pub.hidden}" to play here. */\n`)
      const withToken = await rawRequest(`${app.url}/embed/${hidden}.js?token=${token}`, 'GET')
      expect(withToken.status).toBe(200)
      expect(withToken.body).toContain(`"page":"${app.url}/embed/${hidden}?token=${token}"`)
      expect(withToken.headers['cache-control']).toBe('no-store')
    })

    it('answers 404 when no online channel of the media offers players', async () => {
      const media = xmlOf(
        await app.client.post('/platform/default/medias', {
          form: { name: 'Offline TV', domain_name: 'offline.example.org', contact_email: 'tv@example.org' },
        }),
        201,
      ).media
      const stream = await createStream(app.client, text(media.slug), 'Off')
      const slug = await published(app.client, stream, { file: pub.file, title: 'Off air', visibility: 'visible' })
      expect((await page(`/player/${slug}`)).status).toBe(200)
      const channels = list<XmlObject>(
        xmlOf(await app.client.get(`/media/${text(media.slug)}/channels`), 200).channels.channel,
      )
      for (const channel of channels) {
        const res = await app.client.put(`/media/${text(media.slug)}/channel/${text(channel.slug)}`, {
          form: { is_online: 0 },
        })
        expect(res.status, res.body).toBe(201)
      }
      const res = await page(`/player/${slug}`)
      expectErrorPage(res, 404)
      expect(res.body).toContain('no online channel of its media offers one')
    })
  })

  it('escapes titles and descriptions', async () => {
    const body = (await page(`/player/${pub.evil}`)).body
    expect(body).toContain('<title>&#60;script&#62;alert(1)&#60;/script&#62;</title>')
    expect(body).toContain('<h1 class="title" id="title">&#60;script&#62;alert(1)&#60;/script&#62;</h1>')
    expect(body).toContain(
      '<meta name="description" content="&#60;img src=x onerror=alert(2)&#62; &#38; &#34;quotes&#34;">',
    )
    expect(body).not.toContain(EVIL_TITLE)
    expect(body).not.toContain('<img src=x')
  })

  describe('the JavaScript embed', () => {
    it('is a script inserting the iframe of the widget at its size, with the postMessage wrapper', async () => {
      const res = await rawRequest(`${app.url}/embed/${pub.widget}.js`, 'GET', { headers: { accept: '*/*' } })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers['cache-control']).toBe('public, max-age=300')
      // The embed bundle as built, run with this widget's settings; nothing of it left in the page's globals.
      expect(res.body).toBe(
        `/* mediactl player embed: docs/pages.md, The player page */\n(function (settings) {\n${browserScript('embed').body}})(` +
          `{"widget":"${pub.widget}","page":"${app.url}/embed/${pub.widget}","width":640,"height":360,"title":"Course page","origin":"${app.url}"})\n`,
      )
      expect(res.body).toContain('document.currentScript')
    })

    it('escapes the widget name for the script', async () => {
      const created = xmlOf(
        await app.client.post(`/resource/${pub.visible}/widgets`, {
          form: { name: '</script><b>"x"\u2028</b>', size: '320x180' },
        }),
        201,
      )
      const res = await rawRequest(`${app.url}/embed/${text(created.widget.slug)}.js`, 'GET')
      expect(res.body).toContain('"title":"\\u003c/script\\u003e\\u003cb\\u003e\\"x\\"\\u2028\\u003c/b\\u003e"')
    })

    it('answers 404 as a script comment for an unknown widget', async () => {
      const res = await rawRequest(`${app.url}/embed/nothing-here.js`, 'GET')
      expect(res.status).toBe(404)
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
      expect(res.body).toBe('/* mediactl: No widget "nothing-here". */\n')
    })
  })

  describe('assets', () => {
    const require = createRequire(import.meta.url)
    const hlsSource = readFileSync(require.resolve('hls.js/dist/hls.light.min.js'), 'utf8').replace(
      /\n?\/\/# sourceMappingURL=\S+\s*$/,
      '\n',
    )
    const { version } = require('hls.js/package.json') as { version: string }
    const hlsPath = `/player/assets/hls-${version}.js`

    it('serves hls.js compressed (brotli, gzip, or not at all), cached for good, revalidated with its ETag', async () => {
      const br = await getBytes(app.url, hlsPath, { 'accept-encoding': 'gzip, deflate, br, zstd' })
      expect(br.status).toBe(200)
      expect(br.headers).toMatchObject({
        'content-type': 'text/javascript; charset=utf-8',
        'content-encoding': 'br',
        'cache-control': 'public, max-age=31536000, immutable',
        vary: 'Accept-Encoding',
        'x-content-type-options': 'nosniff',
      })
      expect(brotliDecompressSync(br.body).toString()).toBe(hlsSource)
      expect(br.body.length).toBeLessThan(110_000)
      const gz = await getBytes(app.url, hlsPath, { 'accept-encoding': 'gzip' })
      expect(gz.headers['content-encoding']).toBe('gzip')
      expect(gunzipSync(gz.body).toString()).toBe(hlsSource)
      const plain = await getBytes(app.url, hlsPath, { 'accept-encoding': 'br;q=0, gzip;q=0' })
      expect(plain.headers['content-encoding']).toBeUndefined()
      expect(plain.body.toString()).toBe(hlsSource)
      const again = await getBytes(app.url, hlsPath, {
        'accept-encoding': 'br',
        'if-none-match': String(br.headers.etag),
      })
      expect(again.status).toBe(304)
      expect(again.body.length).toBe(0)
    })

    it("serves the player's own script under its hash, and 404 for anything else", async () => {
      const body = (await page(`/player/${pub.visible}`)).body
      const path = /<script src="[^"]+(\/player\/assets\/player-[0-9a-f]{16}\.js)"/.exec(body)![1]!
      const res = await getBytes(app.url, path, { 'accept-encoding': 'gzip' })
      expect(res.status).toBe(200)
      // plugins/player/browser/player.browser.ts as bundled into dist/browser/.
      expect(gunzipSync(res.body)).toEqual(browserScript('player').body)
      expect(path).toBe(`/player/assets/${browserScript('player').file}`)
      expect((await getBytes(app.url, '/player/assets/player-0000000000000000.js')).status).toBe(404)
      expect((await getBytes(app.url, '/player/assets/hls-0.0.1.js')).status).toBe(404)
    })
  })

  describe('views', () => {
    const post = (slug: string, token?: string) =>
      rawRequest(
        `${app.url}/player/${slug}/views${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`,
        'POST',
      )

    it('counts one view per page load: 204, the same token again 204 without counting', async () => {
      const before = await viewsOf(app, pub.counted)
      const first = configOf((await page(`/player/${pub.counted}`)).body).views as string
      const second = configOf((await page(`/player/${pub.counted}`)).body).views as string
      expect(first).not.toBe(second)
      const res = await rawRequest(first, 'POST')
      expect(res.status, res.body).toBe(204)
      expect(res.body).toBe('')
      expect(await viewsOf(app, pub.counted)).toBe(before + 1)
      expect((await rawRequest(first, 'POST')).status).toBe(204)
      expect(await viewsOf(app, pub.counted)).toBe(before + 1)
      // Concurrent replays of another page load's token: one counts.
      const answers = await Promise.all(Array.from({ length: 5 }, () => rawRequest(second, 'POST')))
      expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204, 204])
      expect(await viewsOf(app, pub.counted)).toBe(before + 2)
    })

    it('refuses a missing (403), forged (401), expired (403) or misplaced (403) view token, and a media token', async () => {
      const id = await idOf(pub.counted)
      const before = await viewsOf(app, pub.counted)
      expect((await post(pub.counted)).status).toBe(403)
      const forged = signToken(
        'not-the-secret',
        VIEW_TOKEN_PURPOSE,
        { r: id, s: pub.counted, v: 'x' },
        new Date(Date.now() + 60_000),
      )
      expect((await post(pub.counted, forged)).status).toBe(401)
      // A resource token is not a view token (another purpose: its signature does not match).
      expect((await post(pub.counted, resourceToken(tokensWith(secret), { id, slug: pub.counted }, 3600))).status).toBe(
        401,
      )
      const expired = signToken(
        secret,
        VIEW_TOKEN_PURPOSE,
        { r: id, s: pub.counted, v: 'y' },
        new Date(Date.now() - 1000),
      )
      expect((await post(pub.counted, expired)).status).toBe(403)
      const elsewhere = viewToken(tokensWith(secret), { id, slug: pub.counted }, 60)
      expect((await post(pub.visible, elsewhere)).status).toBe(403)
      expect(await viewsOf(app, pub.counted)).toBe(before)
    })

    it('forgets the sessions of expired tokens on maintenance.purge', async () => {
      const count = async () =>
        Number((await app.kernel.em().execute<{ n: number }[]>('select count(*) as n from player_view_sessions'))[0]!.n)
      expect(await count()).toBeGreaterThan(0)
      const report: Record<string, number> = {}
      await app.kernel.services.events.emit('maintenance.purge', { now: new Date(), report })
      expect(report['expired player view sessions']).toBe(0)
      await app.kernel.services.events.emit('maintenance.purge', { now: new Date(Date.now() + 5 * 3600_000), report })
      expect(report['expired player view sessions']).toBeGreaterThan(0)
      expect(await count()).toBe(0)
    })
  })

  it('leaves resource info as it was: views shown, players pointing at the page', async () => {
    const info = await resourceInfo(app, pub.counted)
    expect(Number(text(info.views))).toBeGreaterThanOrEqual(2)
  })
})
