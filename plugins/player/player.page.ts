import { SafeHtml, html } from '../../src/kernel/index.js'
import { languageName } from '../../src/shared/iso-codes.js'
import type { ResourceDetails } from '../resources/index.js'
import type { PlayerSettings } from './player.settings.js'
import { scriptJson } from './script-json.js'

/** What a player page shows and plays. */
export interface PlayerPageInput {
  resource: { slug: string; title: string; description: string }
  /** The resource's media URLs, each with a fresh resource token (`describeResources` with-token). */
  details: Pick<ResourceDetails, 'thumbnail' | 'flavors' | 'subtitles' | 'duration'>
  settings: PlayerSettings
  /** The widget shown (`/embed/<widget>`): its slug and frame size; null for `/player/<resource>`. */
  widget: { slug: string; width: number; height: number } | null
  /** Absolute URLs of the page's scripts: hls.js (null when there is no HLS to play), then the player's. */
  scripts: { hls: string | null; player: string }
  /** `POST` here (with its view token) to count the playback session. */
  viewUrl: string
}

/** One MP4 (or audio) file of the flavors: its URL, type, and picture height when its name tells it (`720p`). */
interface FileSource {
  url: string
  type: string
  height: number | null
}

const FILE_TYPES: Record<string, string> = { mp4: 'video/mp4', m4a: 'audio/mp4', mp3: 'audio/mpeg' }

/** The HLS master and the playable files of a resource's flavors (the uploaded original is not for players). */
export function playableSources(flavors: readonly { name: string; url: string }[]): {
  hls: string | null
  files: FileSource[]
} {
  let hls: string | null = null
  const files: FileSource[] = []
  for (const flavor of flavors) {
    const path = new URL(flavor.url).pathname
    if (path.endsWith('/hls/master.m3u8')) {
      hls ??= flavor.url
      continue
    }
    const match = /\/flavor\/(?:video|audio)\/[^/]+\.([a-z0-9]+)$/.exec(path)
    const type = match && FILE_TYPES[match[1]!]
    if (!type) continue
    const height = /^(\d+)p$/.exec(flavor.name)
    files.push({ url: flavor.url, type, height: height ? Number(height[1]) : null })
  }
  return { hls, files }
}

/** The index of the subtitle track shown from the start, or null. */
function defaultTrack(settings: PlayerSettings, subtitles: readonly { language: string }[]): number | null {
  if (!settings.behavior.subtitlesOn || subtitles.length === 0) return null
  const wanted = settings.behavior.subtitleLanguage
  const index = wanted ? subtitles.findIndex((s) => s.language === wanted) : -1
  return index === -1 ? 0 : index
}

const STYLE = `html,body{margin:0;height:100%;background:var(--bg);color:var(--fg);font:15px/1.4 system-ui,sans-serif}
body{display:flex;align-items:center;justify-content:center;overflow:hidden}
.player{position:relative;width:100vw;height:100vh;background:var(--bg);color:var(--fg);accent-color:var(--accent)}
video{display:block;width:100%;height:100%;background:var(--bg);object-fit:contain}
video:focus-visible{outline:2px solid var(--accent);outline-offset:-2px}
.title{position:absolute;top:0;left:0;right:0;margin:0;padding:.6em .9em;font-size:1em;font-weight:600;
background:linear-gradient(var(--bg),transparent);border-left:4px solid var(--accent);pointer-events:none;
white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.started .title{display:none}
.logo{position:absolute;max-width:20%;max-height:20%;pointer-events:none}
.logo-top-left{top:.75em;left:.75em}.logo-top-right{top:.75em;right:.75em}
.logo-bottom-left{bottom:3.5em;left:.75em}.logo-bottom-right{bottom:3.5em;right:.75em}
.message{position:absolute;bottom:0;left:0;right:0;margin:0;padding:.75em;text-align:center;background:var(--bg)}`

/**
 * The player page: a `<video>` with the poster, the MP4 files as `<source>`s (what plays
 * without scripts, or when neither hls.js nor native HLS can), the subtitles as WebVTT
 * `<track>`s, the theme as CSS custom properties (`--bg`, `--fg`, `--accent`) and the logo,
 * the behavior as attributes and as settings for the player's script. Every text is escaped;
 * the settings travel as JSON in a `<script type="application/json">`, which the CSP does not
 * execute. A page of a widget fits its frame, at most the widget's size.
 */
export function playerPage(input: PlayerPageInput): SafeHtml {
  const { resource, details, settings, widget } = input
  const { theme, behavior } = settings
  const sources = playableSources(details.flavors)
  const playable = sources.hls !== null || sources.files.length > 0
  const track = defaultTrack(settings, details.subtitles)
  const config = {
    resource: resource.slug,
    widget: widget?.slug ?? null,
    hls: sources.hls,
    sources: sources.files,
    duration: details.duration,
    autoplay: behavior.autoplay,
    startTime: behavior.startTime,
    subtitles: track,
    views: input.viewUrl,
  }
  const size = widget ? `.player{max-width:${widget.width}px;max-height:${widget.height}px}` : ''
  const style = `:root{--bg:${theme.backgroundColor};--fg:${theme.textColor};--accent:${theme.accentColor}}\n${STYLE}${size}`
  const flag = (on: boolean, name: string) => (on ? new SafeHtml(` ${name}`) : '')
  const scripts = playable
    ? [sources.hls && input.scripts.hls ? input.scripts.hls : null, input.scripts.player].filter((src) => src !== null)
    : []
  const video = html`<video id="video" playsinline preload="none"${details.thumbnail ? html` poster="${details.thumbnail}"` : ''}${flag(behavior.controls, 'controls')}${flag(behavior.muted, 'muted')}${flag(behavior.loop, 'loop')}>
${sources.files.map((file) => html`<source src="${file.url}" type="${file.type}">\n`)}${details.subtitles.map((s, i) => html`<track kind="subtitles" srclang="${s.language}" label="${languageName(s.language)}" src="${s.href}"${flag(i === track, 'default')}>\n`)}</video>`
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${resource.title}</title>
${resource.description ? html`<meta name="description" content="${resource.description}">\n` : ''}<link rel="icon" href="data:,">
<style>${new SafeHtml(style)}</style>
${scripts.map((src) => html`<script src="${src}" defer></script>\n`)}</head>
<body>
<div class="player" id="player" data-state="loading">
${video}
<h1 class="title" id="title">${resource.title}</h1>
${theme.logoUrl ? html`<img class="logo logo-${theme.logoPosition}" src="${theme.logoUrl}" alt="" referrerpolicy="no-referrer">\n` : ''}${playable ? '' : html`<p class="message" role="status">This media is not ready to play yet.</p>\n`}</div>
<script type="application/json" id="player-config">${new SafeHtml(scriptJson(config))}</script>
</body>
</html>
`
}

/** The origin of an absolute URL, for a CSP source. */
const originOf = (url: string): string => new URL(url).origin

/**
 * The Content-Security-Policy directives of a player page, over the kernel's strict defaults:
 * scripts, media, pictures and fetches of this site (`'self'`, and the public base URL's origin,
 * which is the page's own unless a proxy serves it under another name), blob: media and
 * workers (hls.js feeds the video through Media Source Extensions from a worker), and the
 * theme's logo from its own origin.
 */
export function playerCsp(base: string, logoUrl: string | null): Record<string, string> {
  const self = `'self' ${originOf(base)}`
  return {
    'script-src': self,
    'img-src': `${self} data:${logoUrl ? ` ${originOf(logoUrl)}` : ''}`,
    'media-src': `${self} blob:`,
    'connect-src': self,
    'worker-src': 'blob:',
    'form-action': "'none'",
  }
}
