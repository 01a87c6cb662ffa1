import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import {
  type BrowserScript,
  type HttpContext,
  IMMUTABLE_CACHE,
  type Reply,
  SCRIPT_TYPE,
  browserScript,
  notFound,
  reply,
} from '../../src/kernel/index.js'

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/** A static script, in the three encodings a browser may take, compressed once. */
interface Asset {
  identity: Buffer
  br: Buffer
  gzip: Buffer
  etag: string
}

async function compress(name: string, source: Buffer): Promise<Asset> {
  const [br, gz] = await Promise.all([
    brotli(source, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: source.length,
      },
    }),
    gzipped(source, { level: constants.Z_BEST_COMPRESSION }),
  ])
  const etag = createHash('sha256').update(source).digest('base64url').slice(0, 22)
  return { identity: source, br, gzip: gz, etag: `${name}-${etag}` }
}

/** The hls.js light build (no subtitles, alternate audio or DRM, which the player does not use) from node_modules. */
function hlsLibrary(): { path: string; version: string } {
  const require = createRequire(import.meta.url)
  const { version } = require('hls.js/package.json') as { version: string }
  return { path: require.resolve('hls.js/dist/hls.light.min.js'), version }
}

/**
 * The player's scripts, served under `/player/assets/`: `hls-<version>.js` (hls.js, its source
 * map comment removed: the map is not served) and `player-<hash>.js` (ours:
 * plugins/player/browser/player.browser.ts as built). Compressed with brotli and gzip once, off
 * the event loop, when first asked for (`prepare` starts it when the server starts, so the
 * first page does not wait).
 */
export class PlayerAssets {
  readonly hlsName: string
  readonly playerName: string
  private readonly hlsPath: string
  private readonly player: BrowserScript
  /** The JavaScript embed's bundle (embed.script.ts wraps it for each widget). */
  readonly embed: BrowserScript
  private assets: Promise<Map<string, Asset>> | undefined

  constructor() {
    const library = hlsLibrary()
    this.hlsName = `hls-${library.version}.js`
    this.hlsPath = library.path
    this.player = browserScript('player')
    this.playerName = this.player.file
    this.embed = browserScript('embed')
  }

  /** Reads and compresses the assets (once; later calls share the first). */
  prepare(): Promise<Map<string, Asset>> {
    this.assets ??= (async () => {
      const hls = (await readFile(this.hlsPath, 'utf8')).replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n')
      const entries = await Promise.all([
        compress(this.hlsName, Buffer.from(hls)),
        compress(this.playerName, this.player.body),
      ])
      return new Map([
        [this.hlsName, entries[0]],
        [this.playerName, entries[1]],
      ])
    })()
    this.assets.catch(() => (this.assets = undefined))
    return this.assets
  }

  /** The answer for `GET /player/assets/<name>`: the encoding the request accepts best, 304 when it holds this one. */
  async serve(c: HttpContext, name: string): Promise<Reply> {
    const asset = (await this.prepare()).get(name)
    if (!asset) throw notFound(`No player asset "${name}".`)
    const encoding = bestEncoding(c.req.headers['accept-encoding'])
    const etag = `"${asset.etag}${encoding === 'identity' ? '' : `-${encoding}`}"`
    const headers: Record<string, string> = {
      'Cache-Control': IMMUTABLE_CACHE,
      ETag: etag,
      Vary: 'Accept-Encoding',
      'X-Content-Type-Options': 'nosniff',
      ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
    }
    const held = c.req.headers['if-none-match']
    if (held && held.split(',').some((tag) => tag.trim() === etag)) return { status: 304, headers }
    return reply.raw(200, asset[encoding], SCRIPT_TYPE, headers)
  }
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
