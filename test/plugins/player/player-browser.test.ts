import { existsSync, mkdirSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { type Browser, type Frame, type Page, type Response as PageResponse, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RESOURCE_TOKEN_PURPOSE } from '../../../plugins/resources/index.js'
import { signToken } from '../../../src/kernel/index.js'
import type { TestApp } from '../../helpers/app.js'
import { waitFor } from '../../helpers/wait.js'
import { text } from '../../helpers/xml.js'
import { xmlOf } from '../../helpers/answers.js'
import { startEncodingApp } from '../encoding/encoding.helpers.js'
import { EVIL_TITLE, type Published, playerUrl, publishVideo, viewsOf } from './player.helpers.js'

/**
 * The player in headless Chromium (Debian's package, driven by playwright-core): the iframe and
 * JavaScript embeds in a third-party page on another origin, the postMessage API, hidden and
 * draft resources, refused tokens, escaping, view counting, and the page's transfer size.
 */

const CHROMIUM = '/usr/bin/chromium'
const HAS_CHROMIUM = existsSync(CHROMIUM)
const ARTIFACTS = join(import.meta.dirname, '../../../test-artifacts')
/** The goal of the issue for the page before the media: HTML, scripts and styles as sent. */
const TRANSFER_GOAL = 150 * 1024

/** Runs an expression in the page or frame (the tests are compiled without the DOM's types). */
const js = <T>(target: Page | Frame, expression: string): Promise<T> => target.evaluate(expression) as Promise<T>
/**
 * Waits until an expression is truthy in the page or frame. Polled with `evaluate` (the DevTools
 * protocol, which the page's CSP does not govern): `waitForFunction` would eval the string in
 * the page, which the player's CSP rightly refuses.
 */
async function until(target: Page | Frame, expression: string, timeout = 15_000): Promise<void> {
  await waitFor(() => js<boolean>(target, `Boolean(${expression})`), { timeout, interval: 50, message: expression })
}
const VIDEO = "document.getElementById('video')"

/** A third-party site: pages holding the embed codes, served from another origin than mediactl's. */
async function thirdPartySite(pages: Record<string, string>): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const body = pages[req.url ?? '']
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' })
    res.end(body ?? 'not here')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  // localhost, not 127.0.0.1: another site, not only another port.
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, server }
}

const hostPage = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
  `<style>body{font:16px system-ui;margin:8px;background:#fff8e7}</style></head><body>${body}</body></html>`

describe.skipIf(!HAS_CHROMIUM)(
  HAS_CHROMIUM ? 'player in headless Chromium' : `player in headless Chromium: SKIPPED, ${CHROMIUM} is missing`,
  // Bounds of failure only: in the repeated runs beside the Node legs (two cores, Chromium, ffmpeg and three test
  // processes), a page load and a play took over the suite's 30 s.
  { timeout: 90_000 },
  () => {
    let app: TestApp
    let pub: Published
    let browser: Browser
    let site: { origin: string; server: Server }
    /** Content-Security-Policy complaints of any page, which would mean the player's CSP blocks something it needs. */
    const violations: string[] = []

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true })
      // Views written at once: the count is read right after each play (batches: view-counter.test.ts).
      app = await startEncodingApp({ config: { resources: { views_flush_ms: 0 } } })
      pub = await publishVideo(app)
      const widget = xmlOf(await app.client.get(`/resource/${pub.visible}/widgets/${pub.widget}`), 200).widget
      site = await thirdPartySite({
        '/iframe': hostPage(
          'Iframe embed',
          `<h1>A course page</h1>${text(widget.embeds.iframe)}<p>After the player.</p>`,
        ),
        '/script': hostPage(
          'Script embed',
          `<h1>A blog</h1><p id="before">Before the player.</p>${text(widget.embeds.javascript)}<p id="after">After the player.</p>`,
        ),
        '/missing': hostPage(
          'Missing widget',
          `<iframe src="${app.url}/embed/no-such-widget" width="640" height="360"></iframe>`,
        ),
      })
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
          '--disable-sync',
          '--autoplay-policy=no-user-gesture-required',
        ],
      })
      // A bound of failure only: an encoding and a Chromium start took over the suite's 60 s in the repeated runs,
      // beside the Node 22 and 24 legs on the same two cores.
    }, 240_000)

    afterAll(async () => {
      await browser?.close()
      site?.server.closeAllConnections()
      await new Promise((resolve) => site?.server.close(resolve))
      await app?.close()
    }, 120_000)

    /** A new page that records CSP complaints and script errors of every frame. */
    async function newPage(): Promise<Page> {
      const page = await browser.newPage({ viewport: { width: 960, height: 600 } })
      page.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text())
      })
      page.on('pageerror', (error) => violations.push(`script error: ${error.message}`))
      return page
    }

    /** The player frame of a host page, once it is there. */
    async function playerFrame(page: Page): Promise<Frame> {
      const element = await page.waitForSelector('iframe')
      const frame = await element.contentFrame()
      expect(frame).not.toBeNull()
      await until(
        frame!,
        `document.getElementById('player') && document.getElementById('player').dataset.state === 'ready'`,
      )
      return frame!
    }

    /** Asserts the video plays in this frame: currentTime passes `seconds`. */
    const plays = (frame: Frame, seconds = 0.5) => until(frame, `${VIDEO}.currentTime > ${seconds}`)

    /** Shows the subtitles (as a viewer would in the captions menu) and waits for an active cue; returns its text. */
    async function activeCue(frame: Frame): Promise<string> {
      await js(frame, `${VIDEO}.textTracks[0].mode = 'showing'`)
      await until(frame, `(${VIDEO}.textTracks[0].activeCues || []).length > 0`)
      return js<string>(frame, `${VIDEO}.textTracks[0].activeCues[0].text`)
    }

    /** The player container's colors, as computed. */
    const colors = (frame: Frame) =>
      js<{ background: string; color: string }>(
        frame,
        `(() => { const s = getComputedStyle(document.getElementById('player')); return { background: s.backgroundColor, color: s.color } })()`,
      )

    it('plays the iframe embed in a third-party page: time advances, a French cue shows, the Dark theme applies', async () => {
      const page = await newPage()
      await page.goto(`${site.origin}/iframe`)
      const frame = await playerFrame(page)
      expect(new URL(frame.url()).origin).toBe(app.url)
      await plays(frame)
      // hls.js through Media Source Extensions, muted as autoplay must be.
      expect(await js(frame, `${VIDEO}.currentSrc.startsWith('blob:')`)).toBe(true)
      expect(await js(frame, `${VIDEO}.muted`)).toBe(true)
      expect(await js(frame, `${VIDEO}.textTracks[0].language`)).toBe('fr')
      expect(await activeCue(frame)).toMatch(/^(Bonjour tout le monde|Fin)$/)
      expect(await colors(frame)).toEqual({ background: 'rgb(18, 18, 18)', color: 'rgb(245, 245, 245)' })
      await page.screenshot({ path: join(ARTIFACTS, 'player-iframe.png') })
      await page.close()
      expect(violations).toEqual([])
    })

    it('inserts the JavaScript embed where its script stands, at the widget size, shrinking with its container', async () => {
      const page = await newPage()
      await page.goto(`${site.origin}/script`)
      const frame = await playerFrame(page)
      await plays(frame)
      const layout = await js<{ placed: boolean; box: number; frame: [number, number] }>(
        page,
        `(() => {
          const box = document.getElementById('before').nextElementSibling
          const frame = box.querySelector('iframe').getBoundingClientRect()
          return {
            placed: box.className === 'mediactl-player' && box.nextElementSibling.tagName === 'SCRIPT',
            box: box.getBoundingClientRect().width,
            frame: [frame.width, frame.height],
          }
        })()`,
      )
      expect(layout).toEqual({ placed: true, box: 640, frame: [640, 360] })
      // The bundle's names stay inside its wrapper: the host page gets window.mediactl only.
      expect(
        await js<string[]>(page, `['settings', 'player', 'frame', 'box', 'send'].filter((name) => name in window)`),
      ).toEqual([])
      await page.setViewportSize({ width: 416, height: 600 })
      const small = await js<[number, number]>(
        page,
        `(() => { const r = document.querySelector('.mediactl-player iframe').getBoundingClientRect(); return [r.width, r.height] })()`,
      )
      expect(small[0]).toBe(400)
      expect(small[1]).toBeCloseTo(225, 0)
      expect(await activeCue(frame)).toMatch(/^(Bonjour tout le monde|Fin)$/)
      expect((await colors(frame)).background).toBe('rgb(18, 18, 18)')
      await page.screenshot({ path: join(ARTIFACTS, 'player-js-embed.png') })
      await page.close()
      expect(violations).toEqual([])
    })

    it('drives the JavaScript embed through its postMessage API: pause, seek, play, and the events', async () => {
      const page = await newPage()
      await page.goto(`${site.origin}/script`)
      const frame = await playerFrame(page)
      await until(
        page,
        `window.mediactl && window.mediactl.player('${pub.widget}') && window.mediactl.player('${pub.widget}').ready`,
      )
      await js(
        page,
        `(() => {
          window.seen = []
          const player = window.mediactl.player('${pub.widget}')
          for (const name of ['play', 'pause', 'ended', 'timeupdate']) player.on(name, (data) => window.seen.push(data))
        })()`,
      )
      await plays(frame, 0.3)
      await js(page, `window.mediactl.player('${pub.widget}').pause()`)
      await until(frame, `${VIDEO}.paused`)
      await until(page, `window.seen.some((e) => e.mediactl === 'pause')`)
      await js(page, `window.mediactl.player('${pub.widget}').seek(1.5)`)
      await until(frame, `Math.abs(${VIDEO}.currentTime - 1.5) < 0.25`)
      await until(page, `Math.abs(window.mediactl.player('${pub.widget}').currentTime - 1.5) < 0.25`)
      expect(await js(frame, `${VIDEO}.paused`)).toBe(true)
      await page.screenshot({ path: join(ARTIFACTS, 'player-js-embed-paused.png') })

      // Commands from anything but the parent window are ignored: the player posting to itself.
      await js(page, `window.mediactl.player('${pub.widget}').seek(0).play()`)
      await until(frame, `!${VIDEO}.paused && ${VIDEO}.currentTime > 0.2`)
      await js(frame, `window.postMessage({ mediactl: 'pause' }, '*')`)
      await page.waitForTimeout(300)
      expect(await js(frame, `${VIDEO}.paused`)).toBe(false)

      await until(page, `window.seen.some((e) => e.mediactl === 'ended')`, 10_000)
      const seen = await js<{ mediactl: string; widget: string; resource: string; duration: number }[]>(
        page,
        'window.seen',
      )
      expect(new Set(seen.map((e) => e.mediactl))).toEqual(new Set(['play', 'pause', 'timeupdate', 'ended']))
      const ended = seen.find((e) => e.mediactl === 'ended')!
      expect(ended).toMatchObject({ widget: pub.widget, resource: pub.visible })
      expect(ended.duration).toBeGreaterThan(2.5)
      await page.close()
      expect(violations).toEqual([])
    })

    it('applies a behavior: start time, subtitles on in French, loop, no controls', async () => {
      const behavior = xmlOf(
        await app.client.post('/platform/default/player_behavior', {
          form: { name: 'Lecture hall', controls: 0, loop: 1, start_time: 1, subtitles_on: 1, subtitle_language: 'fr' },
        }),
        201,
      )
      const page = await newPage()
      await page.goto(`${app.url}/player/${pub.visible}?behavior=${text(behavior.player_behavior.slug)}`)
      await until(page, `document.getElementById('player').dataset.state === 'ready'`)
      expect(await js(page, `[${VIDEO}.controls, ${VIDEO}.loop, ${VIDEO}.textTracks[0].mode]`)).toEqual([
        false,
        true,
        'showing',
      ])
      await js(page, `${VIDEO}.play()`)
      // From the start time on, never before it.
      await until(page, `${VIDEO}.currentTime > 0`)
      expect(await js<number>(page, `${VIDEO}.currentTime`)).toBeGreaterThanOrEqual(0.9)
      await until(page, `(${VIDEO}.textTracks[0].activeCues || []).length > 0`)
      await page.screenshot({ path: join(ARTIFACTS, 'player-behavior.png') })
      await page.close()
      expect(violations).toEqual([])
    })

    it('starts at the time a share link names, ?t= or #t=, over the behavior', async () => {
      for (const address of [`/player/${pub.visible}?t=2`, `/player/${pub.visible}#t=2`, `/embed/${pub.widget}?t=2s`]) {
        const page = await newPage()
        await page.goto(`${app.url}${address}`)
        await until(page, `document.getElementById('player').dataset.state === 'ready'`)
        await js(page, `${VIDEO}.muted = true, ${VIDEO}.play()`)
        // From the linked time on, never before it (the 3 s video would otherwise show 0.x first).
        await until(page, `${VIDEO}.currentTime > 0`)
        expect(await js<number>(page, `${VIDEO}.currentTime`), address).toBeGreaterThanOrEqual(1.9)
        await page.close()
      }
      expect(violations).toEqual([])
    })

    it('falls back to native HLS without hls.js, and to the best-fitting MP4 without either', async () => {
      const page = await newPage()
      await page.route('**/player/assets/hls-*.js', (route) => route.abort())
      await page.goto(`${app.url}/player/${pub.visible}`)
      await until(page, `document.getElementById('player').dataset.state === 'ready'`)
      expect(await js(page, `typeof window.Hls`)).toBe('undefined')
      expect(await js<string>(page, `${VIDEO}.currentSrc`)).toMatch(/\/hls\/master\.m3u8\?token=/)
      await js(page, `${VIDEO}.play()`)
      await plays(page as unknown as Frame, 0.3)
      await page.close()

      const old = await newPage()
      await old.route('**/player/assets/hls-*.js', (route) => route.abort())
      // A browser that plays neither through MSE (hls.js is missing) nor HLS natively.
      await old.addInitScript(`(() => {
        const canPlayType = HTMLMediaElement.prototype.canPlayType
        HTMLMediaElement.prototype.canPlayType = function (type) {
          return /mpegurl/i.test(type) ? '' : canPlayType.call(this, type)
        }
      })()`)
      await old.goto(`${app.url}/player/${pub.visible}`)
      await until(old, `document.getElementById('player').dataset.state === 'ready'`)
      // No rung (240p, 120p) fills the 600 px high player: the largest plays.
      expect(await js<string>(old, `${VIDEO}.currentSrc`)).toMatch(/\/flavor\/video\/240p\.mp4\?token=/)
      await js(old, `${VIDEO}.play()`)
      await plays(old as unknown as Frame, 0.3)
      await old.close()
      expect(violations).toEqual([])
    })

    it('plays a hidden resource only with a token, and a draft one never', async () => {
      const page = await newPage()
      const refused = await page.goto(`${app.url}/player/${pub.hidden}`)
      expect(refused!.status()).toBe(404)
      expect(await page.textContent('h1')).toBe('Not found')

      const requests: string[] = []
      page.on('request', (request) => requests.push(new URL(request.url()).pathname))
      const opened = await page.goto(await playerUrl(app, pub.hidden, true))
      expect(opened!.status()).toBe(200)
      await until(page, `document.getElementById('player').dataset.state === 'ready'`)
      // The Default behavior: nothing plays, and no media is fetched, before the viewer asks.
      await page.waitForTimeout(300)
      expect(await js(page, `${VIDEO}.paused`)).toBe(true)
      expect(requests.filter((path) => /\.(ts|m4s|mp4)$/.test(path))).toEqual([])
      await js(page, `${VIDEO}.play()`)
      await plays(page as unknown as Frame)
      await page.screenshot({ path: join(ARTIFACTS, 'player-hidden-with-token.png') })

      const draft = await page.goto(await playerUrl(app, pub.draft, true))
      expect(draft!.status()).toBe(404)
      await page.close()
      expect(violations).toEqual([])
    })

    it('refuses a tampered or expired token, shows a 404 page for unknown slugs, even framed, and escapes titles', async () => {
      const token = new URL(await playerUrl(app, pub.hidden, true)).searchParams.get('token')!
      // Refused with a 401 page and no Digest challenge (a browser would prompt for a login).
      const refused = await newPage()
      const tampered = await refused.goto(`${app.url}/player/${pub.hidden}?token=${token.slice(0, -3)}abc`)
      expect(tampered!.status()).toBe(401)
      expect(tampered!.headers()['www-authenticate']).toBeUndefined()
      expect(await refused.locator('main[role=alert]').textContent()).toContain('not valid')
      await refused.close()
      const page = await newPage()
      const rows = await app.kernel
        .em()
        .execute<{ id: number }[]>('select id from resources where slug = ?', [pub.hidden])
      const expired = signToken(
        app.kernel.services.secret,
        RESOURCE_TOKEN_PURPOSE,
        { r: Number(rows[0]!.id), s: pub.hidden },
        new Date(Date.now() - 60_000),
      )
      const late = await page.goto(`${app.url}/player/${pub.hidden}?token=${expired}`)
      expect(late!.status()).toBe(403)
      expect(await page.textContent('h1')).toBe('Not allowed')

      expect((await page.goto(`${app.url}/player/no-such-resource`))!.status()).toBe(404)
      expect((await page.goto(`${app.url}/embed/no-such-widget`))!.status()).toBe(404)
      // Framed on a third-party page, the 404 page still shows (it may be framed).
      await page.goto(`${site.origin}/missing`)
      const frame = await (await page.waitForSelector('iframe')).contentFrame()
      await until(frame!, `document.querySelector('h1') && document.querySelector('h1').textContent === 'Not found'`)

      let dialogs = 0
      page.on('dialog', (dialog) => {
        dialogs++
        void dialog.dismiss()
      })
      await page.goto(`${app.url}/player/${pub.evil}`)
      await until(page, `document.getElementById('player').dataset.state === 'ready'`)
      expect(await page.title()).toBe(EVIL_TITLE)
      expect(await page.textContent('#title')).toBe(EVIL_TITLE)
      expect(
        await js(page, `document.querySelectorAll('script:not([src]):not([type="application/json"])').length`),
      ).toBe(0)
      expect(dialogs).toBe(0)
      await page.screenshot({ path: join(ARTIFACTS, 'player-escaped-title.png') })
      await page.close()
    })

    it('counts a view on the first play of a page load, not on a second play, and again after a reload', async () => {
      const page = await newPage()
      const posts: PageResponse[] = []
      page.on('response', (response) => {
        if (response.request().method() === 'POST' && response.url().includes('/views?')) posts.push(response)
      })
      expect(await viewsOf(app, pub.counted)).toBe(0)
      await page.goto(`${app.url}/player/${pub.counted}`)
      await until(page, `document.getElementById('player').dataset.state === 'ready'`)
      const counted = page.waitForResponse((r) => r.url().includes(`/player/${pub.counted}/views?`))
      await js(page, `${VIDEO}.play()`)
      expect((await counted).status()).toBe(204)
      await plays(page as unknown as Frame, 0.3)
      expect(await viewsOf(app, pub.counted)).toBe(1)

      await js(page, `${VIDEO}.pause()`)
      await js(page, `${VIDEO}.play()`)
      await plays(page as unknown as Frame, 0.8)
      await page.waitForTimeout(300)
      expect(posts).toHaveLength(1)
      expect(await viewsOf(app, pub.counted)).toBe(1)

      await page.reload()
      await until(page, `document.getElementById('player').dataset.state === 'ready'`)
      const again = page.waitForResponse((r) => r.url().includes(`/player/${pub.counted}/views?`))
      await js(page, `${VIDEO}.play()`)
      expect((await again).status()).toBe(204)
      expect(posts).toHaveLength(2)
      expect(await viewsOf(app, pub.counted)).toBe(2)
      await page.close()
    })

    it('sends less than 150 KB of HTML, scripts and styles before the media', async () => {
      const page = await newPage()
      const sizes: { url: string; type: string; bytes: number }[] = []
      const pending: Promise<void>[] = []
      page.on('response', (response) => {
        const type = response.request().resourceType()
        // Not the media, nor hls.js's worker (a blob: made from the script already counted).
        if (!['document', 'script', 'stylesheet'].includes(type) || !response.url().startsWith('http')) return
        pending.push(
          response
            .request()
            .sizes()
            .then((s) => {
              sizes.push({
                url: new URL(response.url()).pathname,
                type,
                bytes: s.responseHeadersSize + s.responseBodySize,
              })
            }),
        )
      })
      await page.goto(`${app.url}/embed/${pub.widget}`)
      await until(page, `document.getElementById('player').dataset.state === 'ready'`)
      await plays(page as unknown as Frame, 0.2)
      await Promise.all(pending)
      const total = sizes.reduce((sum, s) => sum + s.bytes, 0)
      console.log(
        `player page transfer before media: ${(total / 1024).toFixed(1)} KB (goal < 150 KB): ` +
          sizes.map((s) => `${s.type} ${s.url} ${s.bytes} B`).join(', '),
      )
      expect(sizes.map((s) => s.type).sort()).toEqual(['document', 'script', 'script'])
      expect(total).toBeLessThan(TRANSFER_GOAL)
      await page.close()
    })
  },
)
