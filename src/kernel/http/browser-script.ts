import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../shared/package-root.js'
import type { Readable } from 'node:stream'
import type { HttpContext } from './context.js'
import { type Reply, reply } from './reply.js'

/** The content type of every script the server sends. */
export const SCRIPT_TYPE = 'text/javascript; charset=utf-8'

/** For assets whose URL carries their content hash or version: a cached copy never outlives its content. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable'

/**
 * A page's script as built: `plugins/<plugin>/browser/<name>.browser.ts` bundled by
 * `npm run build` (scripts/bundle-browser.js) into `dist/browser/<name>.js`.
 */
export interface BrowserScript {
  readonly name: string
  readonly body: Buffer
  /** 16 hex digits of the body's SHA-256: in the script's URL, so browsers may keep it for good. */
  readonly hash: string
  /** `<name>-<hash>.js`: the file name of a page that serves its script under a hashed name. */
  readonly file: string
  /** `"<hash>"`, the validator of `browserScriptReply`. */
  readonly etag: string
  /** The body compressed with brotli and with gzip at build time (`dist/browser/<name>.js.br`, `.gz`). */
  readonly br: Buffer
  readonly gzip: Buffer
}

const loaded = new Map<string, BrowserScript>()

/**
 * The bundle `name`, read once per process. Plugins ask for it while registering, so a missing
 * bundle stops the boot with the way out, rather than failing a page later.
 */
export function browserScript(name: string): BrowserScript {
  const known = loaded.get(name)
  if (known) return known
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name)) throw new Error(`not a browser script name: "${name}"`)
  const path = join(packageRoot(), 'dist', 'browser', `${name}.js`)
  let body: Buffer, br: Buffer, gzip: Buffer
  try {
    body = readFileSync(path)
    br = readFileSync(`${path}.br`)
    gzip = readFileSync(`${path}.gz`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    throw new Error(
      `the browser script "${name}" is not built (${(error as NodeJS.ErrnoException).path ?? path} is missing): ` +
        'run `npm run build`, which bundles plugins/*/browser/*.browser.ts into dist/browser/',
    )
  }
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16)
  const script: BrowserScript = { name, body, hash, file: `${name}-${hash}.js`, etag: `"${hash}"`, br, gzip }
  loaded.set(name, script)
  return script
}

/**
 * A script whose URL carries its version, with the cache headers of one: kept for good, 304 when
 * the request holds this version (`If-None-Match`). `body` is called only for a 200.
 */
export function scriptReply(
  c: HttpContext,
  asset: { etag: string; size: number; body: () => string | Buffer | Readable },
): Reply {
  const headers = { 'Cache-Control': IMMUTABLE_CACHE, ETag: asset.etag, 'X-Content-Type-Options': 'nosniff' }
  if (c.req.headers['if-none-match'] === asset.etag) return { status: 304, headers }
  return reply.raw(200, asset.body(), SCRIPT_TYPE, { ...headers, 'Content-Length': String(asset.size) })
}

/**
 * A page's script, compressed as the request accepts best (brotli, else gzip, both made at build time), kept for good
 * by the browser; 304 when the request holds this version in this encoding. `version` names it in the ETag (its
 * content hash unless told).
 */
export function browserScriptReply(c: HttpContext, script: BrowserScript, version = script.hash): Reply {
  const encoding = bestEncoding(c.req.headers['accept-encoding'])
  const etag = `"${version}${encoding === 'identity' ? '' : `-${encoding}`}"`
  const headers: Record<string, string> = {
    'Cache-Control': IMMUTABLE_CACHE,
    ETag: etag,
    Vary: 'Accept-Encoding',
    'X-Content-Type-Options': 'nosniff',
    ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
  }
  const held = c.req.headers['if-none-match']
  if (held && held.split(',').some((tag) => tag.trim() === etag)) return { status: 304, headers }
  const body = encoding === 'identity' ? script.body : script[encoding]
  return reply.raw(200, body, SCRIPT_TYPE, { ...headers, 'Content-Length': String(body.length) })
}

/** `br` when accepted, else `gzip`, else no encoding (RFC 9110: `q=0` refuses one; `*` stands for the others). */
export function bestEncoding(header: string | string[] | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Map<string, number>()
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    accepted.set(name.trim(), q ? Number(q.slice(2)) : 1)
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0
  if (weight('br') > 0) return 'br'
  if (weight('gzip') > 0) return 'gzip'
  return 'identity'
}
