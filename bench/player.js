/**
 * Player benchmark: what a viewer's browser fetches and waits for on the player page
 * (docs/benchmarks.md, section Player). Not yet part of `npm run bench`: run it alone with
 *
 *   npm run build && node bench/player.js
 *
 * or call `runPlayer({ startServer, dist, say })` from bench/run.js, with the same
 * `startServer` as the encoding scenario (a mediactl child that runs its jobs).
 *
 * What it does, on a fresh mediactl (the compiled kernel from dist/ with the shipped plugins
 * and settings: SQLite, storage-fs, queue-inline, encoder-ffmpeg and its default ladder):
 *   1. makes a test video with the bundled ffmpeg (`testsrc2` 1280x720 at 25 fps with a `sine`
 *      tone, H.264 + AAC, 10 s by default), uploads it (`POST /files`, Digest), waits for
 *      `finished` (MP4 ladder 720p/480p/360p and HLS), adds French subtitles (SRT), publishes
 *      it visible into a visible stream of a new media (web and widget channels online) and
 *      makes a widget with the Dark theme and the Autoplay muted behavior;
 *   2. transfer size, the page before the media: the HTML of `GET /embed/<widget>` (and of
 *      `GET /player/<resource>`) and the scripts and styles it loads, in bytes on the wire
 *      (headers + body as sent, compressed as the browser asked):
 *        - in Chromium (Debian's, headless, driven by playwright-core): the sizes Chromium
 *          reports for each document, script and stylesheet response (`Request.sizes()`),
 *          on a cold cache;
 *        - with node:http, `Accept-Encoding: gzip, deflate, br, zstd` as Chromium sends it:
 *          status line + headers + body bytes of the same requests;
 *      goal: under 150 KB (153,600 bytes);
 *   3. time to the first frame: in Chromium, `GET /embed/<widget>` (it autoplays, muted),
 *      from the navigation's start (`performance.now()` origin) to the first decoded frame
 *      presented (`requestVideoFrameCallback`), with `loadeddata` and `playing` beside it;
 *      BENCH_PLAYER_LOADS loads (5) on a cold cache (a new browser context each) and as many
 *      reloads on a warm one (hls.js and the player script cached), medians reported. Over
 *      loopback: this is the page's and the player's own cost, not the network's.
 *
 * Environment knobs (defaults in brackets):
 *   BENCH_PLAYER_SECONDS [10]   length of the test video
 *   BENCH_PLAYER_LOADS [5]      page loads per measurement (median)
 *   BENCH_CHROMIUM [/usr/bin/chromium]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { forkBenchServer, runAlone, serveBenchKernel } from './bench-server.js'
import { digestFetch, fetchRaw, md5 } from './digest.js'
import { multipart } from './publishing-data.js'
import { multipartUpload, slugOf } from './uploads.js'

export const playerSettings = {
  seconds: Math.max(2, Number(process.env.BENCH_PLAYER_SECONDS ?? 10)),
  loads: Math.max(1, Number(process.env.BENCH_PLAYER_LOADS ?? 5)),
  chromium: process.env.BENCH_CHROMIUM || '/usr/bin/chromium',
}

/** Goal of the player issue: the page under 150 KB before the media itself. */
export const PLAYER_GOAL = { transferBytes: 150 * 1024 }

/** What Chromium sends. */
const ACCEPT_ENCODING = 'gzip, deflate, br, zstd'
const MAX_WAIT_MS = 600_000
const SRT = '1\n00:00:00,000 --> 00:00:04,000\nBonjour\n\n2\n00:00:04,000 --> 00:10:00,000\nÀ bientôt\n'

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const round1 = (value) => Math.round(value * 10) / 10

/** A urlencoded form. */
const form = (fields) => ({
  body: new URLSearchParams(fields).toString(),
  type: 'application/x-www-form-urlencoded',
})

/** One Digest request that must answer `expected`; its body as text. */
async function api(app, cred, method, path, body, expected) {
  const res = await digestFetch(app.url, cred, method, path, body ? { 'Content-Type': body.type } : {}, body?.body)
  const text = res.body.toString('utf8')
  if (res.status !== expected) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`)
  return text
}

/** The `<slug>` of each `<tag>` element of a list answer, by its `<name>`. */
function slugsByName(xmlText, tag) {
  const out = {}
  for (const match of xmlText.matchAll(new RegExp(`<${tag} [^>]*>(.*?)</${tag}>`, 'g'))) {
    const slug = /<slug><!\[CDATA\[([^\]]*)\]\]><\/slug>/.exec(match[1])?.[1]
    const name = /<name><!\[CDATA\[([^\]]*)\]\]><\/name>/.exec(match[1])?.[1]
    if (slug && name) out[name] = slug
  }
  return out
}

/** Runs ffmpeg to make the test video. */
async function makeVideo(ffmpeg, path, seconds) {
  const { spawn } = await import('node:child_process')
  await new Promise((resolvePromise, reject) => {
    const child = spawn(
      ffmpeg.path,
      [
        ...['-hide_banner', '-nostdin', '-v', 'error', '-y'],
        ...['-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=25:duration=${seconds}`],
        ...['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
        ...['-c:v', 'libx264', '-preset', 'fast', '-pix_fmt', 'yuv420p'],
        ...['-c:a', 'aac', '-b:a', '128k', '-shortest', '-movflags', '+faststart', path],
      ],
      { env: { ...process.env, ...ffmpeg.env }, stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolvePromise() : reject(new Error(`ffmpeg exited ${code}: ${stderr}`))))
  })
}

/** Uploads, encodes and publishes the video; makes the widget. Resolves with the page paths. */
async function publish(app, cred, source, say) {
  const { size } = await stat(source)
  const uploaded = await multipartUpload(app, cred, source, size, 'player-bench.mp4')
  if (uploaded.status !== 200) throw new Error(`upload answered ${uploaded.status}: ${uploaded.body.slice(0, 300)}`)
  const file = slugOf(uploaded.body)
  const started = Date.now()
  for (;;) {
    const status = await api(app, cred, 'GET', `/file/${file}/status`, null, 200)
    const word = /<encoding_status>(?:<!\[CDATA\[)?([a-z]+)/.exec(status)?.[1]
    if (word === 'finished') break
    if (word === 'failed') throw new Error(`the encoding failed: ${status}`)
    if (Date.now() - started > MAX_WAIT_MS) throw new Error(`still ${word} after ${MAX_WAIT_MS / 1000} s`)
    await sleep(250)
  }
  say(`player: encoded in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  const srt = multipart([
    { name: 'language', value: 'fr' },
    { name: 'subtitle', filename: 'bench.srt', data: Buffer.from(SRT) },
  ])
  await api(app, cred, 'POST', `/file/${file}/subtitles`, srt, 201)
  const media = slugOf(
    await api(
      app,
      cred,
      'POST',
      `/platform/${app.slug ?? 'default'}/medias`,
      form({ name: 'Bench TV', domain_name: 'bench-tv.example.org', contact_email: 'tv@example.org' }),
      201,
    ),
  )
  const stream = slugOf(
    await api(app, cred, 'POST', `/media/${media}/streams`, form({ title: 'Bench', visibility: 'visible' }), 201),
  )
  const resource = slugOf(
    await api(
      app,
      cred,
      'POST',
      `/stream/${stream}/resources`,
      form({ file, title: 'Player bench', visibility: 'visible', description: 'A test pattern with a tone.' }),
      201,
    ),
  )
  const platform = app.slug ?? 'default'
  const themes = slugsByName(
    await api(app, cred, 'GET', `/platform/${platform}/player_theme`, null, 200),
    'player_theme',
  )
  const behaviors = slugsByName(
    await api(app, cred, 'GET', `/platform/${platform}/player_behavior`, null, 200),
    'player_behavior',
  )
  const widget = slugOf(
    await api(
      app,
      cred,
      'POST',
      `/resource/${resource}/widgets`,
      form({
        name: 'Bench widget',
        size: '640x360',
        player_theme: themes.Dark,
        player_behavior: behaviors['Autoplay muted'],
      }),
      201,
    ),
  )
  return { widgetPage: `/embed/${widget}`, resourcePage: `/player/${resource}` }
}

/** Bytes of a response as it came over the wire: status line, headers, blank line, body as sent. */
function wireBytes(res) {
  const head =
    `HTTP/1.1 ${res.status} \r\n` + res.pairs.map(([name, value]) => `${name}: ${value}\r\n`).join('') + '\r\n'
  return Buffer.byteLength(head) + res.body.length
}

/** The page and the scripts and styles it names, fetched with node:http as Chromium would ask for them. */
async function transferByHttp(app, path) {
  const items = []
  const page = await fetchRaw(app.url, path, { Accept: 'text/html', 'Accept-Encoding': ACCEPT_ENCODING })
  items.push({ url: path, type: 'document', bytes: wireBytes(page), encoding: page.headers['content-encoding'] ?? '' })
  const html = page.body.toString('utf8')
  const assets = [
    ...[...html.matchAll(/<script src="([^"]+)"/g)].map((m) => ['script', m[1]]),
    ...[...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => ['stylesheet', m[1]]),
  ]
  for (const [type, url] of assets) {
    const target = new URL(url.replace(/&#38;/g, '&'))
    const res = await fetchRaw(app.url, target.pathname + target.search, { 'Accept-Encoding': ACCEPT_ENCODING })
    items.push({ url: target.pathname, type, bytes: wireBytes(res), encoding: res.headers['content-encoding'] ?? '' })
  }
  return { items, total: items.reduce((sum, item) => sum + item.bytes, 0) }
}

/** Polls an expression in the page (through the DevTools protocol: the page's CSP allows no eval) until it is set. */
async function waitFor(page, expression, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await page.evaluate(expression)
    if (value !== undefined && value !== null && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expression}`)
    await sleep(20)
  }
}

/** Marks, in ms since the navigation started, of the player's first frame (installed before the page's scripts). */
const MARKS_SCRIPT = `(() => {
  window.__playerMarks = {}
  const mark = (name) => { if (!(name in window.__playerMarks)) window.__playerMarks[name] = performance.now() }
  document.addEventListener('DOMContentLoaded', () => {
    mark('domContentLoaded')
    const video = document.getElementById('video')
    if (!video) return
    video.addEventListener('loadeddata', () => mark('loadeddata'), { once: true })
    video.addEventListener('playing', () => mark('playing'), { once: true })
    if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(() => mark('firstFrame'))
  })
})()`

/** Chromium's own account of the page's transfer: document, scripts and styles, headers + body as received. */
async function transferInChromium(browser, url) {
  const context = await browser.newContext()
  const page = await context.newPage()
  const pending = []
  page.on('response', (response) => {
    const type = response.request().resourceType()
    if (!['document', 'script', 'stylesheet'].includes(type) || !response.url().startsWith('http')) return
    pending.push(
      response
        .request()
        .sizes()
        .then((s) => ({
          url: new URL(response.url()).pathname,
          type,
          bytes: s.responseHeadersSize + s.responseBodySize,
        })),
    )
  })
  await page.goto(url)
  await waitFor(
    page,
    `document.getElementById('player') && document.getElementById('player').dataset.state === 'ready'`,
  )
  const items = await Promise.all(pending)
  await context.close()
  return { items, total: items.reduce((sum, item) => sum + item.bytes, 0) }
}

/** One load of the page in `page`: its marks. */
async function firstFrame(page, url) {
  await page.goto(url)
  const marks = await waitFor(page, `window.__playerMarks && window.__playerMarks.firstFrame && window.__playerMarks`)
  return {
    firstFrame: round1(marks.firstFrame),
    loadeddata: marks.loadeddata === undefined ? null : round1(marks.loadeddata),
    playing: marks.playing === undefined ? null : round1(marks.playing),
    domContentLoaded: round1(marks.domContentLoaded),
  }
}

/** Runs the scenario. `startServer()` resolves with `{ server, app }`: app has url, username, apiKey, realm. */
export async function runPlayer({ startServer, dist, say }) {
  const { chromium } = await import('playwright-core')
  const { findBinaries } = await dist('plugins/encoder-ffmpeg/ffmpeg-binaries.js')
  if (!existsSync(playerSettings.chromium)) {
    say(`player: SKIPPED, ${playerSettings.chromium} is missing (apt-get install chromium)`)
    return { skipped: true }
  }
  const workDir = mkdtempSync(join(tmpdir(), 'mediactl-bench-player-'))
  const out = { settings: { ...playerSettings }, source: null, transfer: {}, frames: {}, goal: null, valid: true }
  let browser
  let server
  try {
    const source = join(workDir, 'source.mp4')
    say(`player: making a ${playerSettings.seconds} s 720p25 test video ...`)
    await makeVideo(findBinaries().ffmpeg, source, playerSettings.seconds)
    out.source = { seconds: playerSettings.seconds, bytes: (await stat(source)).size }
    const started = await startServer()
    server = started.server
    const app = started.app
    const cred = { username: app.username, ha1: md5(`${app.username}:${app.realm}:${app.apiKey}`) }
    const pages = await publish(app, cred, source, say)

    browser = await chromium.launch({
      executablePath: playerSettings.chromium,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    })
    out.settings.chromiumVersion = browser.version()
    for (const [name, path] of [
      ['widget page', pages.widgetPage],
      ['resource page', pages.resourcePage],
    ]) {
      const http = await transferByHttp(app, path)
      const browserSide = await transferInChromium(browser, `${app.url}${path}`)
      out.transfer[name] = { path, http, chromium: browserSide }
      say(`player: ${name}: ${browserSide.total} bytes in Chromium, ${http.total} bytes by node:http`)
    }

    const url = `${app.url}${pages.widgetPage}`
    const cold = []
    for (let i = 0; i < playerSettings.loads; i++) {
      const context = await browser.newContext()
      await context.addInitScript(MARKS_SCRIPT)
      cold.push(await firstFrame(await context.newPage(), url))
      await context.close()
    }
    const warm = []
    const context = await browser.newContext()
    await context.addInitScript(MARKS_SCRIPT)
    const page = await context.newPage()
    // A first load fills the cache; the reloads after it are measured.
    await firstFrame(page, url)
    for (let i = 0; i < playerSettings.loads; i++) warm.push(await firstFrame(page, url))
    await context.close()
    const summary = (runs) => ({
      runs,
      firstFrame: round1(median(runs.map((r) => r.firstFrame))),
      loadeddata: round1(median(runs.map((r) => r.loadeddata ?? r.firstFrame))),
      playing: round1(median(runs.map((r) => r.playing ?? r.firstFrame))),
      domContentLoaded: round1(median(runs.map((r) => r.domContentLoaded))),
    })
    out.frames = { path: pages.widgetPage, cold: summary(cold), warm: summary(warm) }
    const worst = Math.max(...Object.values(out.transfer).map((t) => t.chromium.total))
    out.goal = {
      transferBytes: PLAYER_GOAL.transferBytes,
      worstPageBytes: worst,
      met: worst < PLAYER_GOAL.transferBytes,
    }
    out.valid = true
  } catch (error) {
    out.valid = false
    out.error = String(error?.stack ?? error)
    say(`player: FAILED: ${out.error}`)
  } finally {
    await browser?.close()
    await server?.stop()
    rmSync(workDir, { recursive: true, force: true })
  }
  return out
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`

/** The report's tables. */
export function formatPlayerTable(result) {
  if (result.skipped) return 'player: skipped (no Chromium)'
  if (!result.valid) return `player: failed: ${result.error}`
  const lines = []
  lines.push('Player page transfer before the media (headers + body as sent; goal < 150 KB):')
  lines.push('| Page | Request | Chromium | node:http (encoding) |')
  lines.push('| --- | --- | ---: | ---: |')
  for (const [name, t] of Object.entries(result.transfer)) {
    for (const item of t.http.items) {
      const seen = t.chromium.items.find((c) => c.url === item.url)
      lines.push(
        `| ${name} | ${item.type} ${item.url} | ${seen ? `${seen.bytes} B` : '-'} | ${item.bytes} B (${item.encoding || 'none'}) |`,
      )
    }
    lines.push(`| ${name} | **total** | **${kb(t.chromium.total)}** | **${kb(t.http.total)}** |`)
  }
  lines.push('')
  lines.push(
    `Time to the first frame of ${result.frames.path} (autoplay muted), ms from the navigation's start, median of ${result.settings.loads}:`,
  )
  lines.push('| Cache | DOMContentLoaded | loadeddata | playing | first frame (rVFC) |')
  lines.push('| --- | ---: | ---: | ---: | ---: |')
  for (const kind of ['cold', 'warm']) {
    const f = result.frames[kind]
    lines.push(`| ${kind} | ${f.domContentLoaded} | ${f.loadeddata} | ${f.playing} | **${f.firstFrame}** |`)
  }
  lines.push('')
  lines.push(
    `Goal: under ${kb(result.goal.transferBytes)} before the media: ${result.goal.met ? 'met' : 'NOT met'} (largest page ${kb(result.goal.worstPageBytes)}).`,
  )
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------
// Standalone: `node bench/player.js` starts its own mediactl child (this file, --role=server).
// ---------------------------------------------------------------------------------------

/** The mediactl child: the shipped plugins and settings on a temporary data dir, running its jobs as serve does. */
const serverChild = () => serveBenchKernel({ prefix: 'mediactl-bench-player-server-', jobs: true })

/** Forks this file as the server and waits for its address (also used by bench/run.js). */
export const startPlayerServer = () => forkBenchServer(fileURLToPath(import.meta.url))

const isMain = process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url
if (isMain && process.argv.includes('--role=server')) {
  await serverChild()
} else if (isMain) {
  await runAlone({ run: runPlayer, start: startPlayerServer, format: formatPlayerTable })
}
