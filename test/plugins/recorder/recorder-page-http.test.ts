import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RECORDER_GONE, peekRecorderCode, recorderScript } from '../../../plugins/recorder/index.js'
import { RECORDER_PIECE_SIZE } from '../../../plugins/recorder/recorder.page.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { userWithProfile } from '../identity/users.helpers.js'
import { deliver, expectUploadLinks, expireAt, uploadLinksPath } from './recorder.helpers.js'

/** `GET /recorder/<code>` over HTTP: the page, its headers, its refusals, its script. */

const HTML_TYPE = 'text/html; charset=utf-8'
/** What a browser sends when it navigates. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'
/** The page's policy: our own scripts only, recordings from blob: URLs, requests to ourselves, framed by anyone. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "media-src 'self' blob:; connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors *"

const REFUSALS = {
  unknown: {
    title: 'Recorder not found',
    message: 'There is no such recorder: it may have expired and been removed. Reload the page that shows it.',
  },
  used: {
    title: 'Recorder already used',
    message:
      'This recorder was already used: a recorder sends one recording. Reload the page that shows it to get a new one.',
  },
  expired: {
    title: 'Recorder expired',
    message: 'This recorder has expired. Reload the page that shows it to get a new one.',
  },
}

const getPage = (url: string, accept = BROWSER_ACCEPT): Promise<Response> =>
  rawRequest(url, 'GET', { headers: { accept } })

/** Checks the headers of a recorder page (the recorder, or why it cannot be used): embeddable, strict CSP. */
function expectPage(res: Response, status: number, csp = CSP): void {
  expect(res.status, res.body).toBe(status)
  expect(res.headers['content-type']).toBe(HTML_TYPE)
  expect(res.headers['content-security-policy']).toBe(csp)
  // Embeddable: third-party pages frame it, so no X-Frame-Options.
  expect(res.headers['x-frame-options']).toBeUndefined()
  expect(res.headers['x-content-type-options']).toBe('nosniff')
  expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin')
  expect(res.headers['cache-control']).toBe('no-store')
  expect(res.headers['www-authenticate']).toBeUndefined()
  expect(res.body.startsWith('<!DOCTYPE html>') || res.body.startsWith('<!doctype html>')).toBe(true)
}

/** What a refusal page says: its status, reason, title and message. */
function refusalOf(res: Response): { status: string; reason: string; title: string; message: string } | undefined {
  const match =
    /<main role="alert" data-status="(\d+)" data-reason="(\w+)">\s*<h1>([^<]*)<\/h1>\s*<p>([^<]*)<\/p>\s*<\/main>/.exec(
      res.body,
    )
  return match ? { status: match[1]!, reason: match[2]!, title: match[3]!, message: match[4]! } : undefined
}

describe('recorder page over HTTP', () => {
  let app: TestApp
  let pat: DigestClient

  beforeAll(async () => {
    app = await startApp()
    pat = await userWithProfile(app, 'pat', 'default-publisher')
  })
  afterAll(async () => app?.close())

  it('answers the recorder of a fresh code without spending it: controls, data attributes, our script', async () => {
    const code = await deliver(app, pat)
    const res = await getPage(`${app.url}/recorder/${code}`)
    expectPage(res, 200)
    const body = res.body
    const main = /<main\s([^>]*)>/.exec(body)![1]!.trim().split(/\s+/)
    expect(main).toEqual([
      'id="recorder"',
      'data-state="loading"',
      `data-upload-links="../extension/widget/recorder/${code}/upload_links"`,
      `data-piece-size="${RECORDER_PIECE_SIZE}"`,
      'data-max-pieces="10000"',
    ])
    expect(RECORDER_PIECE_SIZE).toBe(1024 * 1024)
    const script = recorderScript()
    expect(body).toContain(`<script src="assets/${script.file}"></script>`)
    expect(script.file).toMatch(/^recorder-[0-9a-f]{16}\.js$/)
    // No inline script (the CSP would block it): the only script element is ours, by address.
    expect(body.match(/<script/g)).toHaveLength(1)
    // Labelled controls, disabled until the script enables them; a timer, a progress bar, live messages.
    expect(body).toContain(
      '<label><input type="radio" name="kind" value="video" checked disabled /> Video (camera and microphone)</label>',
    )
    expect(body).toContain(
      '<label><input type="radio" name="kind" value="audio" disabled /> Sound only (microphone)</label>',
    )
    expect(body).toContain('<legend>Record</legend>')
    expect(body).toMatch(
      /<video\s+id="preview"\s+muted\s+autoplay\s+playsinline\s+hidden\s+aria-label="Live picture of the camera \(sound muted\)"\s*><\/video>/,
    )
    expect(body).toContain(
      '<video id="playback" controls playsinline hidden aria-label="Your recording, to play back before sending"></video>',
    )
    expect(body).toContain('<button type="button" id="toggle" aria-pressed="false" disabled>Start recording</button>')
    expect(body).toContain('<span id="timer" role="timer" aria-label="Recording time">0:00</span>')
    expect(body).toContain('<button type="button" id="send" disabled>Send</button>')
    expect(body).toContain('<progress id="progress" max="100" value="0" hidden aria-label="Sending progress">')
    expect(body).toContain('<p id="status" role="status" aria-live="polite"></p>')
    expect(body).toContain('<p id="alert" role="alert" hidden></p>')
    expect(body).toContain('<noscript>')
    const view = await peekRecorderCode(app.kernel.services.reader, code)
    expect(body).toContain(`<time datetime="${view!.expiresAt.toISOString()}">`)
    // Opening the page spends nothing: the page can be reloaded, and the code still gives links.
    expect(view!.usedAt).toBeNull()
    expectPage(await getPage(`${app.url}/recorder/${code}`), 200)
    expectUploadLinks(app, await rawRequest(`${app.url}${uploadLinksPath(code)}`, 'POST'), code)
  })

  it('answers the page to clients that do not ask for HTML too (it is a page, not an API answer)', async () => {
    const code = await deliver(app, pat)
    expectPage(await getPage(`${app.url}/recorder/${code}`, '*/*'), 200)
    expectPage(await rawRequest(`${app.url}/recorder/${code}`, 'GET'), 200)
  })

  it('answers an embeddable 404 page for an unknown or malformed code', async () => {
    for (const code of ['A'.repeat(32), 'short', '%3Cscript%3E']) {
      const res = await getPage(`${app.url}/recorder/${code}`)
      expectPage(res, 404)
      expect(refusalOf(res)).toEqual({ status: '404', reason: 'unknown', ...REFUSALS.unknown })
      expect(res.body).toContain('<title>Recorder not found</title>')
      expect(res.body).not.toContain('<script')
    }
  })

  it(`answers an embeddable ${RECORDER_GONE} page for a used code, while the API refuses it with 412`, async () => {
    const code = await deliver(app, pat)
    expectUploadLinks(app, await rawRequest(`${app.url}${uploadLinksPath(code)}`, 'POST'), code)
    const res = await getPage(`${app.url}/recorder/${code}`)
    expectPage(res, 410)
    expect(refusalOf(res)).toEqual({ status: '410', reason: 'used', ...REFUSALS.used })
    expect(res.body).not.toContain('<script')
    expect((await rawRequest(`${app.url}${uploadLinksPath(code)}`, 'POST')).status).toBe(412)
  })

  it('answers the same page for an expired code, and leaves it unused', async () => {
    const code = await deliver(app, pat)
    await expireAt(app, code, new Date(Date.now() - 1000))
    const res = await getPage(`${app.url}/recorder/${code}`)
    expectPage(res, 410)
    expect(refusalOf(res)).toEqual({ status: '410', reason: 'expired', ...REFUSALS.expired })
    expect((await peekRecorderCode(app.kernel.services.reader, code))!.usedAt).toBeNull()
  })

  it('serves its script under a hashed name, cacheable for good, with 304 on a matching ETag', async () => {
    const script = recorderScript()
    const url = `${app.url}/recorder/assets/${script.file}`
    const res = await rawRequest(url, 'GET', { headers: { accept: '*/*' } })
    expect(res.status).toBe(200)
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(res.headers['content-length']).toBe(String(script.body.length))
    expect(res.body).toBe(script.body.toString('utf8'))
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers.etag).toBe(`"${script.hash}"`)
    const again = await rawRequest(url, 'GET', { headers: { 'if-none-match': `"${script.hash}"` } })
    expect(again.status).toBe(304)
    expect(again.body).toBe('')
    // Any other name, an older version included, is unknown.
    for (const name of ['recorder-0000000000000000.js', 'recorder.js', '..%2Fpackage.json']) {
      expect((await rawRequest(`${app.url}/recorder/assets/${name}`, 'GET')).status).toBe(404)
    }
  })
})

describe('recorder page with upload links on another origin', () => {
  let app: TestApp

  beforeAll(async () => {
    app = await startApp({ config: { files: { upload_base_url: 'https://uploads.example.org:8443/base/' } } })
  })
  afterAll(async () => app?.close())

  it('lets the page reach the upload endpoints there (connect-src), and nothing else', async () => {
    const code = await deliver(app, app.client)
    const res = await getPage(`${app.url}/recorder/${code}`)
    expectPage(res, 200, CSP.replace("connect-src 'self'", "connect-src 'self' https://uploads.example.org:8443"))
  })
})
