import { existsSync, mkdirSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import { type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { type Browser, type BrowserContext, type Frame, type Page, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileQueries } from '../../../plugins/files/file.queries.js'
import { peekRecorderCode } from '../../../plugins/recorder/index.js'
import { type TestApp } from '../../helpers/app.js'
import { type DigestClient, rawRequest } from '../../helpers/digest-client.js'
import { readAll } from '../../helpers/streams.js'
import { type XmlObject, list, parseXml, text } from '../../helpers/xml.js'
import { ffprobe, fileInfo, startEncodingApp, waitForStatus } from '../encoding/encoding.helpers.js'
import { userWithProfile } from '../identity/users.helpers.js'
import { WIDGET, deliver, expectWidget, uploadLinksPath } from './recorder.helpers.js'

/**
 * The recorder page in headless Chromium with its fake camera and microphone (a moving test
 * picture and a beep): recording, playback, sending in pieces, the encoded result, and what
 * the page says when it cannot record or send.
 */

const CHROMIUM = '/usr/bin/chromium'
const HAS_CHROMIUM = existsSync(CHROMIUM)
const ARTIFACTS = join(process.cwd(), 'test-artifacts')
/** Small pieces, so that a short recording goes in several (the page sends 1 MB pieces). */
const TEST_PIECE = 32 * 1024

const REFUSED_SEND =
  'This recorder can no longer send: it was already used or it has expired (a recorder sends one recording). ' +
  'Reload the page that shows it to get a new one.'
const USED_PAGE =
  'This recorder was already used: a recorder sends one recording. Reload the page that shows it to get a new one.'

/** The little of the browser's DOM these tests touch (they compile without the DOM library). */
interface BrowserWindow {
  document: { getElementById(id: string): { setAttribute(name: string, value: string): void } }
}
interface VideoElement {
  readyState: number
  duration: number
  addEventListener(type: string, listener: (event: unknown) => void): void
}

/** A page of another site (another loopback origin) that includes the widget's HTML as its owner would. */
async function thirdPartySite(): Promise<{ url: string; show(snippet: string): void; close(): Promise<void> }> {
  let body = ''
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
    res.end(`<!DOCTYPE html><html><head><title>A blog</title></head>
<body style="font-family:sans-serif;background:#fafafa"><h1>Leave us a message</h1>${body}</body></html>`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    // localhost, not 127.0.0.1: another host name and port, so another origin and another site.
    url: `http://localhost:${port}/`,
    show(snippet) {
      body = snippet
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

// Bounds of failure only (PAGE_STATE_BOUND says why): a test waits up to 60 s for one page state.
describe.skipIf(!HAS_CHROMIUM)('recorder page in Chromium (fake camera and microphone)', { timeout: 90_000 }, () => {
  let app: TestApp
  let pat: DigestClient
  let browser: Browser
  let site: Awaited<ReturnType<typeof thirdPartySite>>

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    app = await startEncodingApp()
    pat = await userWithProfile(app, 'pat', 'default-publisher')
    site = await thirdPartySite()
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-background-networking',
        '--use-fake-device-for-media-stream',
        '--use-fake-ui-for-media-stream',
      ],
    })
  })

  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await app?.close()
  })

  /**
   * How long a page state may take to show: a bound on failure only. In CI the repeated runs share two cores with two
   * other suites, and Chromium's fake camera once took more than 6 s to show the timer's first second.
   */
  const PAGE_STATE_BOUND = 60_000

  /**
   * The page's timer at `seconds` (under 10) or more: a starved page (or Playwright's polling) may never show the
   * exact second, which the page only shows for one second.
   */
  const timerAtLeast = (seconds: number) => `#timer:text-matches("^0:0[${seconds}-9]$")`

  /** Collects what would show a broken page: script errors, console errors (CSP violations among them). */
  function watch(page: Page): string[] {
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    return problems
  }

  /** The recorder once its script is ready. */
  async function ready(frame: Frame | Page): Promise<void> {
    await frame.waitForSelector('#recorder[data-state="idle"]', { timeout: PAGE_STATE_BOUND })
  }

  const stateOf = (frame: Frame | Page) => frame.getAttribute('#recorder', 'data-state')

  /** Records for about `seconds` (by the page's own timer), then stops; waits for the playback. */
  async function record(frame: Frame | Page, seconds: number, screenshot?: Page): Promise<void> {
    await frame.click('#toggle')
    await frame.waitForSelector('#recorder[data-state="recording"]')
    expect(await frame.textContent('#toggle')).toBe('Stop recording')
    expect(await frame.getAttribute('#toggle', 'aria-pressed')).toBe('true')
    expect(await frame.isDisabled('#send')).toBe(true)
    // Selectors, not functions: the page's CSP forbids the eval that waitForFunction would need.
    await frame.waitForSelector(timerAtLeast(seconds), { timeout: PAGE_STATE_BOUND })
    if (screenshot) await screenshot.screenshot({ path: join(ARTIFACTS, 'recorder-recording.png') })
    await frame.click('#toggle')
    await frame.waitForSelector('#recorder[data-state="recorded"]', { timeout: PAGE_STATE_BOUND })
    expect(await frame.textContent('#toggle')).toBe('Record again')
    expect(await frame.isEnabled('#send')).toBe(true)
    expect(await frame.getAttribute('#playback', 'src')).toMatch(/^blob:http:\/\/127\.0\.0\.1:\d+\//)
    // The camera is off again once the recording ends.
    expect(await frame.isHidden('#preview')).toBe(true)
  }

  /** The duration the browser reads from the recording it plays back (the page wrote it into the WebM). */
  function playbackDuration(frame: Frame | Page): Promise<number> {
    return frame.evaluate(async () => {
      const video = (globalThis as unknown as BrowserWindow).document.getElementById(
        'playback',
      ) as unknown as VideoElement
      if (video.readyState < 1) await new Promise((resolve) => video.addEventListener('loadedmetadata', resolve))
      return video.duration
    })
  }

  /** The files of pat's root directory: name → slug. */
  async function rootFiles(): Promise<Map<string, string>> {
    const res = await pat.get('/files')
    expect(res.status, res.body).toBe(200)
    const files = list<XmlObject>(parseXml(res.body).files.file)
    return new Map(files.map((file) => [text(file.name), text(file.slug)]))
  }

  /** Waits for the encoding of a file the page sent, checks it finished as `type`, and probes the stored recording. */
  async function expectEncoded(name: string, type: 'video' | 'audio') {
    const slug = (await rootFiles()).get(name)
    expect(slug, `${name} in pat's root`).toBeDefined()
    const samples = await waitForStatus(pat, slug!, ['finished', 'failed'], 90_000)
    expect(samples.at(-1)!.status).toBe('finished')
    const info = await fileInfo(pat, slug!)
    expect(text(info.type)).toBe(type)
    const stored = await fileQueries.fileBySlug(app.kernel.services.reader, slug!)
    const bytes = await readAll(await app.kernel.services.ports.get('storage').read(stored!.storageKey))
    expect(text(info.size)).toBe(String(bytes.length))
    return { slug: slug!, probe: await ffprobe(bytes) }
  }

  it('records 3 s of video in an iframe of a third-party page, sends it in pieces, and it becomes a finished video', async () => {
    const { code, html } = expectWidget(app, await pat.get(WIDGET))
    site.show(html)
    const context = await browser.newContext({ viewport: { width: 760, height: 640 } })
    const page = await context.newPage()
    const problems = watch(page)
    const frameAnswer = page.waitForResponse((res) => res.url() === `${app.url}/recorder/${code}`)
    await page.goto(site.url)
    // The frame's answer: embeddable anywhere, our scripts only.
    const answer = await frameAnswer
    expect(answer.status()).toBe(200)
    const headers = answer.headers()
    expect(headers['content-security-policy']).toContain('frame-ancestors *')
    expect(headers['content-security-policy']).toContain("script-src 'self';")
    expect(headers['content-security-policy']).toContain("media-src 'self' blob:")
    expect(headers['content-security-policy']).toContain("connect-src 'self';")
    expect(headers['x-frame-options']).toBeUndefined()
    const frame = (await (await page.waitForSelector('iframe')).contentFrame())!
    expect(frame.url()).toBe(`${app.url}/recorder/${code}`)
    await ready(frame)

    // The same code in another tab, opened before the recording is sent: it can record, not send.
    const other = await context.newPage()
    const otherProblems = watch(other)
    await other.goto(`${app.url}/recorder/${code}`)
    await ready(other)
    // Back to the first tab: a tab in the background is neither painted nor given full timers.
    await page.bringToFront()

    // What the page asks of the server while sending.
    const linksAnswers: number[] = []
    const pieceAnswers: Promise<unknown>[] = []
    page.on('response', (res) => {
      if (res.url().endsWith(uploadLinksPath(code))) linksAnswers.push(res.status())
      if (res.url().includes('/upload/json?') && res.request().method() === 'POST') {
        pieceAnswers.push(res.text().then((body) => [res.status(), JSON.parse(body)] as const))
      }
    })

    await record(frame, 3, page)
    const duration = await playbackDuration(frame)
    // About 3 s: the page wrote the duration it measured (a loaded machine stops the recording late).
    expect(duration).toBeGreaterThan(2.5)
    expect(duration).toBeLessThan(10)
    expect(await frame.textContent('#status')).toMatch(/^Recorded 0:0\d\. Play it back, then press Send/)
    await frame.evaluate((size) => {
      const recorder = (globalThis as unknown as BrowserWindow).document.getElementById('recorder')
      recorder.setAttribute('data-piece-size', size)
    }, String(TEST_PIECE))

    await frame.click('#send')
    await frame.waitForSelector('#recorder[data-state="sent"], #recorder[data-state="error"]', { timeout: 30_000 })
    expect(await frame.textContent('#alert')).toBe('')
    expect(await stateOf(frame)).toBe('sent')
    await page.screenshot({ path: join(ARTIFACTS, 'recorder-done.png') })
    const name = (await frame.getAttribute('#recorder', 'data-file'))!
    expect(name).toMatch(/^recording-\d{4}-\d{2}-\d{2}-\d{6}\.webm$/)
    expect(await frame.getAttribute('#progress', 'value')).toBe('100')
    expect(await frame.isVisible('#progress')).toBe(true)
    const status = (await frame.textContent('#status'))!
    expect(status).toMatch(
      new RegExp(`^Sent: ${name.replace('.', '\\.')} \\((\\d+) bytes\\)\\. It is now being prepared\\.`),
    )
    expect(await frame.isHidden('#toggle')).toBe(true)
    expect(await frame.isDisabled('#send')).toBe(true)

    // One request spent the code; then the pieces, in order, each answered by the json endpoint.
    expect(linksAnswers).toEqual([200])
    const pieces = (await Promise.all(pieceAnswers)) as [number, Record<string, unknown>][]
    const size = Number(/\((\d+) bytes\)/.exec(status)![1])
    const count = Math.ceil(size / TEST_PIECE)
    expect(count).toBeGreaterThan(1)
    expect(pieces).toHaveLength(count)
    pieces.slice(0, -1).forEach(([code, body], index) => {
      expect(code).toBe(200)
      expect(body).toEqual({ chunk: index, chunks: count, bytes: (index + 1) * TEST_PIECE })
    })
    const [lastStatus, last] = pieces.at(-1)!
    expect(lastStatus).toBe(200)
    expect(last).toMatchObject({ result: { name, size } })
    expect((await peekRecorderCode(app.kernel.services.reader, code))!.usedAt).not.toBeNull()

    // The recording, in pat's root, encoded like any upload: a finished video as long as the page
    // recorded (about 3 s; later on a loaded machine, which stops it late), with sound.
    const { probe } = await expectEncoded(name, 'video')
    expect(probe.format.format_name).toBe('matroska,webm')
    expect(Number(probe.format.duration)).toBeGreaterThan(2.5)
    expect(Math.abs(Number(probe.format.duration) - duration)).toBeLessThan(0.5)
    expect(probe.streams.map((stream) => stream.codec_name).sort()).toEqual(['opus', 'vp8'])

    // The other tab records, but the code is spent: the page says so and offers nothing more.
    await other.bringToFront()
    await record(other, 1)
    await other.click('#send')
    await other.waitForSelector('#recorder[data-state="error"]', { timeout: PAGE_STATE_BOUND })
    expect(await other.getAttribute('#alert', 'data-problem')).toBe('refused')
    expect(await other.textContent('#alert')).toBe(REFUSED_SEND)
    expect(await other.isHidden('#toggle')).toBe(true)
    expect(await other.isDisabled('#send')).toBe(true)
    // Reloaded, the recorder of a used code is a page saying so; the API refuses the code too.
    const reloaded = await other.reload()
    expect(reloaded!.status()).toBe(410)
    expect(await other.textContent('main[role="alert"] p')).toBe(USED_PAGE)
    expect((await rawRequest(`${app.url}${uploadLinksPath(code)}`, 'POST')).status).toBe(412)
    // Nothing else reached pat's root.
    expect([...(await rootFiles()).keys()]).toEqual([name])

    expect(problems).toEqual([])
    // The browser logs the refused request (412) and the reloaded page's status (410), nothing else.
    expect(otherProblems).toEqual([
      'console: Failed to load resource: the server responded with a status of 412 (Precondition Failed)',
      'console: Failed to load resource: the server responded with a status of 410 (Gone)',
    ])
    await context.close()
  }, 180_000)

  it('records sound only, sends again to the same link after a failed upload, and it becomes a finished audio file', async () => {
    const code = await deliver(app, pat)
    const context = await browser.newContext()
    const page = await context.newPage()
    const problems = watch(page)
    const linksAnswers: number[] = []
    page.on('response', (res) => {
      if (res.url().endsWith(uploadLinksPath(code))) linksAnswers.push(res.status())
    })
    await page.goto(`${app.url}/recorder/${code}`)
    await ready(page)
    await page.check('input[name="kind"][value="audio"]')
    await page.click('#toggle')
    await page.waitForSelector('#recorder[data-state="recording"]')
    expect(await page.isHidden('#preview')).toBe(true)
    await page.waitForSelector(timerAtLeast(2), { timeout: PAGE_STATE_BOUND })
    await page.click('#toggle')
    await page.waitForSelector('#recorder[data-state="recorded"]', { timeout: PAGE_STATE_BOUND })
    expect(await playbackDuration(page)).toBeGreaterThan(1.5)

    // The first upload fails (an error of the json endpoint, as a full disk would answer): the page says so.
    const failure = { error: { code: 500, message: 'Internal error: the server log has the details.' } }
    await page.route('**/upload/json?**', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify(failure) }),
    )
    await page.click('#send')
    await page.waitForSelector('#recorder[data-state="error"]', { timeout: PAGE_STATE_BOUND })
    expect(await page.getAttribute('#alert', 'data-problem')).toBe('upload')
    expect(await page.textContent('#alert')).toBe(
      'The recording could not be sent: Internal error: the server log has the details.',
    )
    expect(await page.isEnabled('#send')).toBe(true)
    expect(await page.isEnabled('#toggle')).toBe(true)
    await page.unroute('**/upload/json?**')

    // Send again: the same upload link, the code is not asked for twice.
    await page.click('#send')
    await page.waitForSelector('#recorder[data-state="sent"], #recorder[data-state="error"]', { timeout: 30_000 })
    expect(await page.textContent('#alert')).toBe('')
    expect(linksAnswers).toEqual([200])
    const name = (await page.getAttribute('#recorder', 'data-file'))!
    expect(name).toMatch(/^recording-.*\.webm$/)
    const { probe } = await expectEncoded(name, 'audio')
    expect(probe.streams.map((stream) => stream.codec_name)).toEqual(['opus'])
    expect(problems).toEqual([
      'console: Failed to load resource: the server responded with a status of 500 (Internal Server Error)',
    ])
    await context.close()
  }, 120_000)

  /** Opens the recorder of a new code in a page where `init` runs first (to make the browser fail as asked). */
  async function openFailing(
    init: string,
  ): Promise<{ page: Page; context: BrowserContext; code: string; problems: string[] }> {
    const code = await deliver(app, pat)
    const context = await browser.newContext()
    await context.addInitScript(init)
    const page = await context.newPage()
    const problems = watch(page)
    await page.goto(`${app.url}/recorder/${code}`)
    return { page, context, code, problems }
  }

  const rejectWith = (name: string, message: string) => `
    navigator.mediaDevices.getUserMedia = function () {
      return Promise.reject(new DOMException(${JSON.stringify(message)}, ${JSON.stringify(name)}))
    }`

  it('says clearly when the camera or microphone is refused, and lets the visitor try again', async () => {
    const { page, context, code, problems } = await openFailing(rejectWith('NotAllowedError', 'Permission denied'))
    await ready(page)
    await page.click('#toggle')
    await page.waitForSelector('#alert:not([hidden])')
    expect(await page.getAttribute('#alert', 'data-problem')).toBe('denied')
    expect(await page.textContent('#alert')).toBe(
      "Access to the camera and microphone was refused. Allow this page to use them (in the browser's address bar " +
        'or site settings), then press Start recording again.',
    )
    expect(await page.getAttribute('#alert', 'role')).toBe('alert')
    expect(await stateOf(page)).toBe('error')
    expect(await page.isEnabled('#toggle')).toBe(true)
    expect(await page.isDisabled('#send')).toBe(true)
    await page.screenshot({ path: join(ARTIFACTS, 'recorder-denied.png') })
    // For sound only, the message names the microphone alone.
    await page.check('input[name="kind"][value="audio"]')
    await page.click('#toggle')
    await page.waitForSelector('#alert:has-text("Access to the microphone was refused.")')
    // Nothing was spent.
    expect((await peekRecorderCode(app.kernel.services.reader, code))!.usedAt).toBeNull()
    expect(problems).toEqual([])
    await context.close()
  })

  it('says clearly when there is no camera or microphone', async () => {
    const { page, context, problems } = await openFailing(rejectWith('NotFoundError', 'Requested device not found'))
    await ready(page)
    await page.click('#toggle')
    await page.waitForSelector('#alert:not([hidden])')
    expect(await page.getAttribute('#alert', 'data-problem')).toBe('absent')
    expect(await page.textContent('#alert')).toBe(
      'No camera or microphone was found. Connect one and press Start recording again, or choose Sound only.',
    )
    expect(problems).toEqual([])
    await context.close()
  })

  it('says clearly when the browser cannot record (no MediaRecorder), with every control disabled', async () => {
    const { page, context, problems } = await openFailing('delete window.MediaRecorder')
    await page.waitForSelector('#recorder[data-state="error"]')
    expect(await page.getAttribute('#alert', 'data-problem')).toBe('unsupported')
    expect(await page.textContent('#alert')).toBe(
      'This browser cannot record (MediaRecorder is not supported). Try a recent Chrome, Edge or Firefox.',
    )
    expect(await page.isDisabled('#toggle')).toBe(true)
    expect(await page.isDisabled('#send')).toBe(true)
    expect(await page.isDisabled('input[name="kind"][value="video"]')).toBe(true)
    expect(problems).toEqual([])
    await context.close()
  })

  it('shows a 404 page for an unknown code, also inside a third-party frame', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const unknown = `${app.url}/recorder/${'Z'.repeat(32)}`
    const res = await page.goto(unknown)
    expect(res!.status()).toBe(404)
    expect(await page.textContent('main[role="alert"] h1')).toBe('Recorder not found')
    expect(await page.textContent('main[role="alert"] p')).toBe(
      'There is no such recorder: it may have expired and been removed. Reload the page that shows it.',
    )
    site.show(`<iframe src="${unknown}" width="640" height="480"></iframe>`)
    await page.goto(site.url)
    const frame = (await (await page.waitForSelector('iframe')).contentFrame())!
    await frame.waitForSelector('main[role="alert"]')
    expect(await frame.textContent('main[role="alert"] h1')).toBe('Recorder not found')
    await context.close()
  })
})
