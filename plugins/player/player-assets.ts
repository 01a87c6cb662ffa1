import { createRequire } from 'node:module'
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

/** hls.js's version, in its asset's name. */
function hlsVersion(): string {
  const require = createRequire(import.meta.url)
  return (require('hls.js/package.json') as { version: string }).version
}

/**
 * The player's scripts, served under `/player/assets/`: `hls-<version>.js` (hls.js's light build, copied into
 * dist/browser/hls.js by the build, its source map comment removed: the map is not served) and `player-<hash>.js`
 * (ours: plugins/player/browser/player.browser.ts as built). Both compressed with brotli and gzip by the build
 * (scripts/bundle-browser.js), not by each server start.
 */
export class PlayerAssets {
  readonly hlsName: string
  readonly playerName: string
  /** The JavaScript embed's bundle (embed.script.ts wraps it for each widget). */
  readonly embed: BrowserScript
  private readonly assets: Map<string, BrowserScript & { etag: string }>

  constructor() {
    const hls = browserScript('hls')
    const player = browserScript('player')
    this.hlsName = `hls-${hlsVersion()}.js`
    this.playerName = player.file
    this.embed = browserScript('embed')
    this.assets = new Map([
      [this.hlsName, { ...hls, etag: `${this.hlsName}-${hls.hash}` }],
      [this.playerName, { ...player, etag: `${this.playerName}-${player.hash}` }],
    ])
  }

  /** The answer for `GET /player/assets/<name>`: the encoding the request accepts best, 304 when it holds this one. */
  serve(c: HttpContext, name: string): Reply {
    const asset = this.assets.get(name)
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
    return reply.raw(200, encoding === 'identity' ? asset.body : asset[encoding], SCRIPT_TYPE, headers)
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
