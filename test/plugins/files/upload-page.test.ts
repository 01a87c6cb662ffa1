import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer, request as httpRequest } from 'node:http'
import { type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import busboy from 'busboy'
import { type Browser, type Page, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileQueries } from '../../../plugins/files/file.queries.js'
import { ProfileEntity, UserEntity } from '../../../plugins/identity/index.js'
import { browserScript, signToken } from '../../../src/kernel/index.js'
import { type TestApp, startApp } from '../../helpers/app.js'
import { type DigestClient, type Response, rawRequest } from '../../helpers/digest-client.js'
import { multipart } from '../../helpers/multipart.js'
import { readAll } from '../../helpers/streams.js'
import { xmlOf } from '../../helpers/answers.js'
import { type XmlObject, list, text } from '../../helpers/xml.js'
import { userWithFlags } from '../identity/permissions.fixtures.js'

/** The html upload page of upload links: its HTTP answers, then a real upload from headless Chromium. */

const CHROMIUM = '/usr/bin/chromium'
const HAS_CHROMIUM = existsSync(CHROMIUM)
const FLAGS = ['file.create', 'file.delete', 'folder.create']
const PIECE = 1024 * 1024
const HTML_TYPE = 'text/html; charset=utf-8'
/** What a browser sends when it navigates. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

/** One request of the page to the json endpoint, as it came over the wire: its fields, and its file part. */
interface PieceRequest {
  /** Path and query. */
  url: string
  /** The names of the parts, in the order sent. */
  order: string[]
  fields: Record<string, string>
  file?: { field: string; filename: string | undefined; size: number }
}

/** Reads a multipart body back. */
function parsePiece(url: string, body: Buffer, contentType: string): Promise<PieceRequest> {
  return new Promise((resolve, reject) => {
    const piece: PieceRequest = { url, order: [], fields: {} }
    const parser = busboy({ headers: { 'content-type': contentType } })
    parser.on('field', (name, value) => {
      piece.order.push(name)
      piece.fields[name] = value
    })
    parser.on('file', (field, stream, info) => {
      piece.order.push(field)
      let size = 0
      stream.on('data', (chunk: Buffer) => (size += chunk.length))
      stream.on('end', () => (piece.file = { field, filename: info.filename, size }))
    })
    parser.on('close', () => resolve(piece))
    parser.on('error', reject)
    parser.end(body)
  })
}

/** The recording proxy below. */
interface RecordingProxy {
  url: string
  /** The requests to the json endpoint since the last call, in order. */
  take(): Promise<PieceRequest[]>
  close(): Promise<void>
}

/**
 * A reverse proxy in front of the app that keeps the POST bodies to the json endpoint: Chromium
 * does not show Playwright the bodies of requests carrying a file, so the test reads them here.
 */
async function recordingProxy(target: string): Promise<RecordingProxy> {
  let posts: Promise<PieceRequest>[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const url = req.url ?? '/'
      if (req.method === 'POST' && url.startsWith('/upload/json?')) {
        posts.push(parsePiece(url, body, req.headers['content-type'] ?? ''))
      }
      const upstream = httpRequest(new URL(url, target), {
        method: req.method,
        headers: { ...req.headers, host: new URL(target).host },
      })
      upstream.on('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      })
      upstream.on('error', () => res.destroy())
      upstream.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    take() {
      const taken = posts
      posts = []
      return Promise.all(taken)
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

describe('upload endpoints: the html page', () => {
  let app: TestApp
  let alice: DigestClient
  let directory: string
  let links: { html: string; json: string }

  async function makeDirectory(client: DigestClient, name: string): Promise<string> {
    return text(xmlOf(await client.post('/files', { form: { name } }), 201).directory.slug)
  }

  async function uploadLinks(client: DigestClient, slug?: string): Promise<{ html: string; json: string }> {
    const doc = xmlOf(await client.post(slug ? `/files/${slug}/upload_links` : '/files/upload_links'), 200)
    const [html, json] = list<XmlObject>(doc.links.link).map((l) => String(l['@href']))
    return { html: html!, json: json! }
  }

  async function storedBytes(slug: string): Promise<Buffer> {
    const file = await fileQueries.fileBySlug(app.kernel.services.reader, slug)
    expect(file).toBeDefined()
    return readAll(await app.kernel.services.ports.get('storage').read(file!.storageKey))
  }

  /** Checks the file with Digest (name, size, directory) and its stored bytes. */
  async function expectStored(slug: string, name: string, data: Buffer, folder: string | null): Promise<void> {
    const file = xmlOf(await alice.get(`/file/${slug}`), 200).file as XmlObject
    expect(text(file.name)).toBe(name)
    expect(text(file.size)).toBe(String(data.length))
    expect(file.directory['@href']).toBe(folder ? `${app.url}/files/${folder}` : `${app.url}/files`)
    expect((await storedBytes(slug)).equals(data)).toBe(true)
  }

  function expectHtml(res: Response, status: number): void {
    expect(res.status, res.body).toBe(status)
    expect(res.headers['content-type']).toBe(HTML_TYPE)
    expect(res.body.startsWith('<!DOCTYPE html>')).toBe(true)
    expect(res.headers['referrer-policy']).toBe('no-referrer')
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.headers['content-security-policy']).toContain("script-src 'self'")
    expect(res.headers['www-authenticate']).toBeUndefined()
  }

  /** The message of an HTML error page. */
  const errorOf = (body: string): string | undefined =>
    /<p class="error" id="result" data-state="error" data-status="\d+">([^<]*)<\/p>/
      .exec(body)?.[1]
      ?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))

  const getPage = (url: string): Promise<Response> => rawRequest(url, 'GET', { headers: { accept: BROWSER_ACCEPT } })

  beforeAll(async () => {
    app = await startApp({ config: { files: { upload_piece_size: PIECE } } })
    alice = await userWithFlags(app, 'alice', FLAGS)
    directory = await makeDirectory(alice, 'Browser <uploads>')
    links = await uploadLinks(alice, directory)
  })

  afterAll(async () => {
    await app?.close()
  })

  describe('over HTTP', () => {
    it('answers the page: target directory, a multipart form to itself, the json URL and the piece size', async () => {
      const res = await getPage(links.html)
      expectHtml(res, 200)
      const query = new URL(links.html).search.slice(1)
      expect(res.body).toContain('Into the directory <strong>Browser &#60;uploads&#62;</strong>')
      expect(res.body).toContain(`<strong>alice</strong>`)
      expect(res.body).toContain(`action="html?${query}"`)
      expect(res.body).toContain(`data-url="json?${query}" data-piece-size="${PIECE}"`)
      expect(res.body).toContain('<input type="file" id="file" name="file[path]" required>')
      expect(res.body).toMatch(/<script src="assets\/flow\.min\.js\?v=2\.14\.1"><\/script>/)
      expect(res.body).toMatch(/<script src="assets\/upload-page\.js\?v=[0-9a-f]{16}"><\/script>/)
    })

    it('answers HTML error pages for a missing, forged or expired token, a deleted directory, a lost flag', async () => {
      const missing = await getPage(`${app.url}/upload/html`)
      expectHtml(missing, 401)
      expect(errorOf(missing.body)).toBe('This endpoint needs the token of an upload link (POST /files/upload_links).')
      const forged = await getPage(links.html.slice(0, -3) + 'AAA')
      expectHtml(forged, 401)
      expect(errorOf(forged.body)).toBe(
        'The upload token is not valid: ask for a new upload link (POST /files/upload_links).',
      )
      const secret = 'test-secret-' + app.dataDir
      const expired = signToken(secret, 'upload', { u: 'alice', d: null }, new Date(Date.now() - 1000))
      const late = await getPage(`${app.url}/upload/html?token=${expired}`)
      expectHtml(late, 401)
      expect(errorOf(late.body)).toBe('The upload link expired: ask for a new one (POST /files/upload_links).')

      const gone = await makeDirectory(alice, 'Gone')
      const goneLinks = await uploadLinks(alice, gone)
      expect((await alice.delete(`/files/${gone}`)).status).toBe(204)
      const deleted = await getPage(goneLinks.html)
      expectHtml(deleted, 404)
      expect(errorOf(deleted.body)).toBe(`No directory "${gone}".`)

      const dave = await userWithFlags(app, 'dave', FLAGS)
      const daveLinks = await uploadLinks(dave)
      const em = app.kernel.em()
      const user = await em.findOneOrFail(UserEntity, { username: 'dave' }, { populate: ['profile'] })
      await em.nativeUpdate(ProfileEntity, { id: user.profile.id }, { permissions: [] })
      const lost = await getPage(daveLinks.html)
      expectHtml(lost, 403)
      expect(errorOf(lost.body)).toBe(
        'The user of this upload link no longer holds the "file.create" permission of their profile.',
      )
    })

    it('serves Flow.js from node_modules and the page script, cacheable, with 304 on a matching ETag', async () => {
      const library = readFileSync(createRequire(import.meta.url).resolve('@flowjs/flow.js/dist/flow.min.js'))
      expect(library.toString('utf8')).toMatch(/^\/\*! @flowjs\/flow\.js 2\.14\.1 \*\//)
      const res = await rawRequest(`${app.url}/upload/assets/flow.min.js?v=2.14.1`, 'GET')
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
      expect(res.headers['content-length']).toBe(String(library.length))
      expect(res.body).toBe(library.toString('utf8'))
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      expect(res.headers['x-content-type-options']).toBe('nosniff')
      expect(res.headers.etag).toBe('"flowjs-2.14.1"')
      const again = await rawRequest(`${app.url}/upload/assets/flow.min.js`, 'GET', {
        headers: { 'if-none-match': '"flowjs-2.14.1"' },
      })
      expect(again.status).toBe(304)
      expect(again.body).toBe('')
      const script = await rawRequest(`${app.url}/upload/assets/upload-page.js`, 'GET')
      expect(script.status).toBe(200)
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
      // plugins/files/browser/upload-page.browser.ts as bundled into dist/browser/.
      const bundle = browserScript('upload-page')
      expect(script.body).toBe(bundle.body.toString('utf8'))
      expect(script.headers['content-length']).toBe(String(bundle.body.length))
      expect(script.body).toContain('fileParameterName: "file[path]"')
      expect(script.body).toContain('forceChunkSize: true')
      expect(script.body).toContain('simultaneousUploads: 1')
      expect(script.headers.etag).toBe(`"${bundle.hash}"`)
      expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      const cached = await rawRequest(`${app.url}/upload/assets/upload-page.js`, 'GET', {
        headers: { 'if-none-match': String(script.headers.etag) },
      })
      expect(cached.status).toBe(304)
    })

    it('takes a plain form post (no JavaScript) and answers an HTML result page', async () => {
      const data = randomBytes(50_000)
      const { body, contentType } = multipart([
        { name: 'error', value: 'true' },
        { name: 'file[path]', filename: 'plain.bin', data },
      ])
      const res = await rawRequest(links.html, 'POST', {
        body,
        headers: { 'content-type': contentType, accept: BROWSER_ACCEPT },
      })
      expectHtml(res, 200)
      const href = /<p class="done" id="result" data-state="done"><a href="([^"]+)">plain\.bin<\/a>/.exec(res.body)?.[1]
      expect(href).toMatch(new RegExp(`^${app.url}/file/[a-z0-9-]+$`))
      await expectStored(href!.split('/').pop()!, 'plain.bin', data, directory)
    })

    it('answers a refused plain form post with an HTML page naming the fields, and a link back', async () => {
      const { body, contentType } = multipart([{ name: 'error', value: 'true' }])
      const res = await rawRequest(links.html, 'POST', { body, headers: { 'content-type': contentType } })
      expectHtml(res, 412)
      expect(errorOf(res.body)).toBe('The submitted data is invalid.')
      expect(res.body).toContain(
        '<li><code>path</code>: send the file as the multipart file part &#34;path&#34; (or &#34;file&#34;, &#34;file[path]&#34;)</li>',
      )
      expect(res.body).toContain(`<a href="html?${new URL(links.html).search.slice(1)}">Back to the upload form</a>`)
      const refused = await rawRequest(`${app.url}/upload/html?token=nope`, 'POST', {
        body,
        headers: { 'content-type': contentType },
      })
      expectHtml(refused, 401)
    })
  })

  describe.skipIf(!HAS_CHROMIUM)(
    HAS_CHROMIUM ? 'in headless Chromium' : `in headless Chromium: SKIPPED, ${CHROMIUM} is missing`,
    () => {
      let browser: Browser
      let folder: string
      let source: string
      let empty: string
      let proxy: RecordingProxy
      const data = randomBytes(3.5 * PIECE)

      beforeAll(async () => {
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
          ],
        })
        folder = mkdtempSync(join(tmpdir(), 'mediactl-page-'))
        source = join(folder, 'holiday film.mp4')
        writeFileSync(source, data)
        empty = join(folder, 'empty.txt')
        writeFileSync(empty, '')
        proxy = await recordingProxy(app.url)
      })

      afterAll(async () => {
        await browser?.close()
        await proxy?.close()
        if (folder) rmSync(folder, { recursive: true, force: true })
      })

      /** The path and query of a link. */
      const pathOf = (link: string): string => new URL(link).pathname + new URL(link).search

      /**
       * Opens the page of a link through the recording proxy; records the answers of the json
       * endpoint, in order (the proxy keeps the requests).
       */
      async function openPage(link: string) {
        await proxy.take()
        const page = await browser.newPage()
        const errors: string[] = []
        page.on('pageerror', (error) => errors.push(error.message))
        const answers: Promise<string>[] = []
        page.on('response', (response) => {
          const request = response.request()
          if (request.url().includes('/upload/json?') && request.method() === 'POST') answers.push(response.text())
        })
        expect((await page.goto(proxy.url + pathOf(link)))?.status()).toBe(200)
        await page.waitForSelector('#drop.ready')
        return { page, errors, answers }
      }

      /** Chooses a file, starts the upload and waits for its end; answers what the page shows. */
      async function upload(page: Page, file: string): Promise<{ state: string | null; shown: string | null }> {
        await page.setInputFiles('#file', file)
        await page.click('#start')
        await page.waitForSelector('#result[data-state="done"], #result[data-state="error"]', { timeout: 30_000 })
        return { state: await page.getAttribute('#result', 'data-state'), shown: await page.textContent('#result') }
      }

      it('uploads a 3.5 MB file in 4 pieces of 1 MB, shows the result, and the bytes arrive intact', async () => {
        const { page, errors, answers } = await openPage(links.html)
        const { state, shown } = await upload(page, source)
        expect(state, shown ?? '').toBe('done')
        expect(shown).toBe(`Uploaded holiday film.mp4 (${data.length} bytes).`)
        expect(await page.getAttribute('#progress', 'value')).toBe('100')
        expect(await page.isEnabled('#start')).toBe(true)
        const href = (await page.getAttribute('#result a', 'href'))!
        expect(href).toMatch(new RegExp(`^${app.url}/file/[a-z0-9-]+$`))
        const slug = href.split('/').pop()!

        // The pieces as sent: one request each, in order, every piece at most 1 MB, with the spec's fields.
        const sent = await proxy.take()
        const sizes = [PIECE, PIECE, PIECE, PIECE / 2]
        expect(sent).toHaveLength(4)
        sent.forEach((piece, index) => {
          expect(piece.url).toBe(pathOf(links.json))
          expect(piece.fields).toMatchObject({
            chunk: String(index),
            chunks: '4',
            name: 'holiday film.mp4',
            error: 'true',
          })
          expect(piece.file).toEqual({ field: 'file[path]', filename: 'holiday film.mp4', size: sizes[index] })
          expect(piece.order.at(-1)).toBe('file[path]')
        })

        const progress = (chunk: number, bytes: number) => ({ chunk, chunks: 4, bytes })
        expect((await Promise.all(answers)).map((body) => JSON.parse(body) as unknown)).toEqual([
          progress(0, PIECE),
          progress(1, 2 * PIECE),
          progress(2, 3 * PIECE),
          { result: { slug, name: 'holiday film.mp4', size: data.length, href } },
        ])
        expect(errors).toEqual([])
        await expectStored(slug, 'holiday film.mp4', data, directory)
        await page.close()
      })

      it('shows the JSON error when the upload is refused, without sending the piece again', async () => {
        const doomed = await makeDirectory(alice, 'Doomed')
        const doomedLinks = await uploadLinks(alice, doomed)
        const { page, errors } = await openPage(doomedLinks.html)
        expect((await alice.delete(`/files/${doomed}`)).status).toBe(204)
        const { state, shown } = await upload(page, source)
        expect(state).toBe('error')
        expect(shown).toBe(`Upload failed: No directory "${doomed}".`)
        expect(await page.isEnabled('#start')).toBe(true)
        // A refusal is final: the first piece went once, and nothing after it.
        await page.waitForTimeout(300)
        expect(await proxy.take()).toHaveLength(1)
        expect(errors).toEqual([])
        await page.close()
      })

      it('reports the refusal of an empty file (412) rather than waiting for ever', async () => {
        const { page, errors } = await openPage(links.html)
        const { state, shown } = await upload(page, empty)
        expect(state).toBe('error')
        expect(shown).toBe('Upload failed: The submitted data is invalid. path: the file is empty (0 bytes)')
        const [sent, ...more] = await proxy.take()
        expect(more).toEqual([])
        expect(sent!.fields).toMatchObject({ chunk: '0', chunks: '1', name: 'empty.txt', error: 'true' })
        expect(sent!.file).toEqual({ field: 'file[path]', filename: 'empty.txt', size: 0 })
        expect(await page.isEnabled('#start')).toBe(true)
        // The page can go on: the next upload works.
        const next = await upload(page, source)
        expect(next.state, next.shown ?? '').toBe('done')
        expect(errors).toEqual([])
        await page.close()
      })

      it('still uploads without JavaScript: the form posts the whole file to the html endpoint', async () => {
        const context = await browser.newContext({ javaScriptEnabled: false })
        const page = await context.newPage()
        await page.goto(links.html)
        await page.setInputFiles('#file', source)
        await Promise.all([page.waitForNavigation(), page.click('#start')])
        expect(await page.getAttribute('#result', 'data-state')).toBe('done')
        const href = (await page.getAttribute('#result a', 'href'))!
        await expectStored(href.split('/').pop()!, 'holiday film.mp4', data, directory)
        await context.close()
      })
    },
  )
})
