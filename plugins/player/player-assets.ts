import { createRequire } from 'node:module'
import {
  type BrowserScript,
  type HttpContext,
  type Reply,
  browserScript,
  browserScriptReply,
  notFound,
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
  private readonly assets: Map<string, BrowserScript & { version: string }>

  constructor() {
    const hls = browserScript('hls')
    const player = browserScript('player')
    this.hlsName = `hls-${hlsVersion()}.js`
    this.playerName = player.file
    this.embed = browserScript('embed')
    this.assets = new Map([
      [this.hlsName, { ...hls, version: `${this.hlsName}-${hls.hash}` }],
      [this.playerName, { ...player, version: `${this.playerName}-${player.hash}` }],
    ])
  }

  /** The answer for `GET /player/assets/<name>`: the encoding the request accepts best, 304 when it holds this one. */
  serve(c: HttpContext, name: string): Reply {
    const asset = this.assets.get(name)
    if (!asset) throw notFound(`No player asset "${name}".`)
    return browserScriptReply(c, asset, asset.version)
  }
}
