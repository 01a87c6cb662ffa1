import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { type IncomingHttpHeaders, get } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { browserScript } from '../../src/kernel/index.js'
import { SECTIONS } from '../../plugins/console/console.pages.js'
import { packageRoot } from '../../src/shared/package-root.js'
import { type TestApp, startApp } from '../helpers/app.js'
import { rawRequest } from '../helpers/digest-client.js'

/** A GET's status, headers and raw body bytes (compressed as sent). */
function rawBytes(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    }).on('error', reject)
  })
}

/** scripts/bundle-browser.js (npm run build, and the suite's global setup). */
interface Bundler {
  bundleBrowserScripts(options?: { outDir?: string }): Promise<{ name: string; path: string; bytes: number }[]>
}

/**
 * Bytes each bundle may reach. The hand-written scripts they replaced weighed 18.5 KB (recorder),
 * 5.1 KB (player), 4.0 KB (upload page) and 3.5 KB (the widget embed): a bundle that grows far past its page's needs, such as
 * a library pulled in by mistake (hls.js is a script of its own), fails here.
 */
/** The console's sections, each a script of its own (`console-<section>`). */
const CONSOLE_SECTIONS = Object.keys(SECTIONS)

const BUDGET: Record<string, number> = {
  recorder: 24_000,
  player: 8_000,
  'upload-page': 6_000,
  embed: 4_500,
  // Each section of the console: Preact, its hooks and signals (about 30 KB), the messages of every section in English and
  // French (about 150 KB: a page may name another section), the section; the library and the dashboard bring
  // tus-js-client and the URL and base64 packages it needs (about 130 KB). Issue 33's budget is on the wire, 80 KB
  // compressed with the page: `npm run bench`.
  ...Object.fromEntries(CONSOLE_SECTIONS.map((section) => [`console-${section}`, 300_000])),
}

/**
 * Where each page serves its script. The widget embed is not served as built: each widget's
 * `/embed/<widget>.js` wraps it with that widget's settings (test/plugins/player/player-http.test.ts).
 */
const SERVED: Record<string, (file: string) => string> = {
  recorder: (file) => `/recorder/assets/${file}`,
  ...Object.fromEntries(
    CONSOLE_SECTIONS.map((section) => [`console-${section}`, (file: string) => `/console/assets/${file}`]),
  ),
  player: (file) => `/player/assets/${file}`,
  'upload-page': () => '/upload/assets/upload-page.js',
}

const root = packageRoot()
/** Every `plugins/<plugin>/browser/<name>.browser.ts` (or `.tsx`), by name. */
const entries = readdirSync(join(root, 'plugins'))
  .flatMap((plugin) => {
    try {
      return readdirSync(join(root, 'plugins', plugin, 'browser'))
    } catch {
      return []
    }
  })
  .filter((file) => /\.browser\.tsx?$/.test(file))
  .map((file) => file.replace(/\.browser\.tsx?$/, ''))
  .sort()

describe('browser scripts (plugins/*/browser/*.browser.ts)', () => {
  let outDir: string
  let bundles: { name: string; path: string; bytes: number }[]

  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'mediactl-browser-'))
    const bundler = (await import(new URL('../../scripts/bundle-browser.js', import.meta.url).href)) as Bundler
    bundles = await bundler.bundleBrowserScripts({ outDir })
  })

  afterAll(() => {
    rmSync(outDir, { recursive: true, force: true })
  })

  it('bundles every entry into one classic script of its name, as the server reads it', () => {
    expect(entries).toEqual(
      [...CONSOLE_SECTIONS.map((section) => `console-${section}`), 'embed', 'player', 'recorder', 'upload-page'].sort(),
    )
    // hls.js's light build comes along (the player serves it).
    expect(bundles.map((bundle) => bundle.name).sort()).toEqual([...entries, 'hls'].sort())
    for (const name of entries) {
      const built = readFileSync(join(outDir, `${name}.js`))
      // The same sources make the same bytes: what the server reads is this checkout's code.
      expect(browserScript(name).body.equals(built), `dist/browser/${name}.js is stale`).toBe(true)
      const text = built.toString('utf8')
      // A strict IIFE: no module syntax and no require(), which a <script src> could not run.
      expect(text.startsWith('"use strict";\n(() => {\n'), name).toBe(true)
      expect(text).not.toMatch(/^\s*(?:import|export)\s/m)
      // (esbuild's own wrapper of a CommonJS package, `function __require()`, is no call of one)
      expect(text).not.toMatch(/(?<![\w$])require\(/)
    }
  })

  it('compresses every script at build time, brotli and gzip of its very bytes, as the server reads them', () => {
    for (const name of [...entries, 'hls']) {
      const built = readFileSync(join(outDir, `${name}.js`))
      expect(brotliDecompressSync(readFileSync(join(outDir, `${name}.js.br`))).equals(built), name).toBe(true)
      expect(gunzipSync(readFileSync(join(outDir, `${name}.js.gz`))).equals(built), name).toBe(true)
      const script = browserScript(name)
      expect(script.br.equals(readFileSync(join(outDir, `${name}.js.br`))), `dist/browser/${name}.js.br is stale`).toBe(
        true,
      )
      expect(brotliDecompressSync(script.br).equals(script.body), name).toBe(true)
      expect(gunzipSync(script.gzip).equals(script.body), name).toBe(true)
    }
    // Brotli at its best quality: hls.js within the player page's budget.
    expect(browserScript('hls').br.length).toBeLessThan(110_000)
  })

  it('rebuilds a compressed twin that went missing, and leaves an unchanged script alone', async () => {
    const bundler = (await import(new URL('../../scripts/bundle-browser.js', import.meta.url).href)) as Bundler
    const script = join(outDir, 'player.js')
    const before = statSync(script).mtimeMs
    rmSync(`${script}.gz`)
    await bundler.bundleBrowserScripts({ outDir })
    expect(gunzipSync(readFileSync(`${script}.gz`)).equals(readFileSync(script))).toBe(true)
    expect(statSync(script).mtimeMs).toBe(before)
  })

  it('keeps each bundle within its budget', () => {
    for (const name of entries) {
      expect(BUDGET[name], `no budget for ${name}`).toBeDefined()
      expect(browserScript(name).body.length, name).toBeLessThan(BUDGET[name]!)
    }
  })

  it('names the way out when a bundle is missing', () => {
    expect(() => browserScript('never-built')).toThrow(
      /the browser script "never-built" is not built \(.*dist\/browser\/never-built\.js is missing\): run `npm run build`/,
    )
  })

  describe('served', () => {
    let app: TestApp

    beforeAll(async () => {
      app = await startApp()
    })

    afterAll(async () => {
      await app?.close()
    })

    it('as built, under the name or version of its content', async () => {
      expect(Object.keys(SERVED).sort()).toEqual(entries.filter((name) => name !== 'embed'))
      for (const name of Object.keys(SERVED)) {
        const script = browserScript(name)
        const res = await rawRequest(`${app.url}${SERVED[name]!(script.file)}`, 'GET')
        expect(res.status, name).toBe(200)
        expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8')
        expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable')
        expect(res.body, name).toBe(script.body.toString('utf8'))
      }
    })

    it('compressed as the request accepts best, each encoding its own version for caches', async () => {
      for (const name of ['recorder', 'console-library', 'upload-page']) {
        const script = browserScript(name)
        const url = `${app.url}${SERVED[name]!(script.file)}`
        const br = await rawBytes(url, { 'accept-encoding': 'gzip, deflate, br, zstd' })
        expect([br.status, br.headers['content-encoding'], br.headers.vary], name).toEqual([
          200,
          'br',
          'Accept-Encoding',
        ])
        expect(brotliDecompressSync(br.body).equals(script.body), name).toBe(true)
        expect(Number(br.headers['content-length'])).toBe(script.br.length)
        const gzip = await rawBytes(url, { 'accept-encoding': 'gzip, br;q=0' })
        expect(gzip.headers['content-encoding'], name).toBe('gzip')
        expect(gunzipSync(gzip.body).equals(script.body), name).toBe(true)
        const identity = await rawBytes(url, { 'accept-encoding': 'identity' })
        expect([identity.headers['content-encoding'], identity.body.equals(script.body)]).toEqual([undefined, true])
        // A copy held in one encoding is that encoding's version only.
        const etag = String(br.headers.etag)
        expect(etag).not.toBe(String(identity.headers.etag))
        const held = { 'accept-encoding': 'br', 'if-none-match': etag }
        expect((await rawBytes(url, held)).status, name).toBe(304)
        expect((await rawBytes(url, { 'accept-encoding': 'gzip', 'if-none-match': etag })).status, name).toBe(200)
      }
    })
  })
})
