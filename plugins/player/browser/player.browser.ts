/**
 * The player page's own script, served as `/player/assets/player-<hash>.js`: no inline script,
 * so the page's CSP allows only scripts of this site. It reads the page's settings from
 * `<script type="application/json" id="player-config">` (never executed) and:
 *
 * - picks the source: HLS through hls.js when `Hls.isSupported()` (Media Source Extensions),
 *   else native HLS when the browser plays `application/vnd.apple.mpegurl` (Safari, iOS), else
 *   the MP4 flavor that best fits the player's height (the `<source>`s of the markup, which also
 *   serve browsers without scripts); a fatal hls.js error falls back to the MP4s;
 * - loads nothing before playback unless the behavior autoplays (muted: browsers allow it);
 * - applies the start time (the behavior's, or the address's `?t=` / `#t=`, in seconds), and shows the default
 *   subtitle track;
 * - counts a view on the first `play` of the page load (`POST` of the view URL, once);
 * - speaks the postMessage API to its parent window (docs/pages.md, postMessage API): events
 *   `{ mediactl: 'ready' | 'play' | 'pause' | 'ended' | 'timeupdate', widget, resource,
 *   currentTime, duration }` posted to any origin, and commands `{ mediactl: 'play' | 'pause'
 *   | 'seek', time }` accepted from the parent window only.
 */
// Types only: hls.js is its own script on the page (window.Hls), never bundled into this one.
import type Hls from 'hls.js'

declare global {
  interface Window {
    Hls?: typeof Hls
  }
}

/** The page's settings (plugins/player/player.page.ts writes them). */
interface PlayerConfig {
  resource: string
  widget: string | null
  /** The HLS master, null when the resource has no HLS rendition. */
  hls: string | null
  /** The MP4 (or audio) files, with their picture height when known. */
  sources?: { url: string; type: string; height: number | null }[]
  /** Seconds, from the resource, until the media says. */
  duration: number | null
  autoplay: boolean
  startTime: number
  /** The index of the text track shown from the start, or null. */
  subtitles: number | null
  /** Where the page counts its view (POST). */
  views: string
}

type PlayerEvent = 'ready' | 'play' | 'pause' | 'ended' | 'timeupdate'

function playerPage(root: HTMLElement, video: HTMLVideoElement, config: PlayerConfig): void {
  const parentWindow = window.parent !== window ? window.parent : null
  let hls: Hls | null = null
  let loading = false
  let counted = false
  let startApplied = !(config.startTime > 0)

  function duration(): number | null {
    return isFinite(video.duration) && video.duration > 0 ? video.duration : config.duration
  }

  function post(type: PlayerEvent): void {
    if (!parentWindow) return
    parentWindow.postMessage(
      {
        mediactl: type,
        widget: config.widget,
        resource: config.resource,
        currentTime: video.currentTime,
        duration: duration(),
      },
      '*',
    )
  }

  /** The MP4 of the markup that best fits: the smallest at least as tall as the player's pixels, else the largest. */
  function bestSource() {
    const sources = config.sources || []
    if (!sources.length) return null
    const wanted = (root.clientHeight || 360) * (window.devicePixelRatio || 1)
    let best: (typeof sources)[number] | null = null
    for (const s of sources) {
      if (s.height && s.height >= wanted && (!best || s.height < (best.height ?? 0))) best = s
    }
    return best || sources[0]!
  }

  function dropSources(): void {
    for (const node of video.querySelectorAll('source')) node.remove()
  }

  function useMp4(): void {
    const source = bestSource()
    if (!source) return
    dropSources()
    video.preload = config.autoplay ? 'auto' : 'metadata'
    video.src = source.url
  }

  function startLoading(position?: number): void {
    if (!hls || loading) return
    loading = true
    hls.startLoad(typeof position === 'number' ? position : config.startTime > 0 ? config.startTime : -1)
  }

  function play(): void {
    startLoading()
    // Older browsers answer no promise.
    const started = video.play() as Promise<void> | undefined
    if (started) {
      started.catch((error: unknown) => {
        // Refused with sound (no user gesture): muted, as browsers allow.
        if ((error as { name?: unknown } | null)?.name === 'NotAllowedError' && !video.muted) {
          video.muted = true
          video.play().catch(() => {})
        }
      })
    }
  }

  function seek(time: number): void {
    if (!isFinite(time) || time < 0) return
    const end = duration()
    if (end && time > end) time = end
    startApplied = true
    if (hls && !loading) startLoading(time)
    video.currentTime = time
  }

  function countView(): void {
    if (counted || !config.views) return
    counted = true
    try {
      fetch(config.views, { method: 'POST', keepalive: true, credentials: 'omit', cache: 'no-store' }).catch(() => {})
    } catch {
      // A browser without fetch (or keepalive) counts no view; playback goes on.
    }
  }

  const HlsPlayer = window.Hls
  if (config.hls && HlsPlayer && HlsPlayer.isSupported()) {
    dropSources()
    const instance = new HlsPlayer({
      autoStartLoad: false,
      startPosition: config.startTime > 0 ? config.startTime : -1,
      capLevelToPlayerSize: true,
    })
    hls = instance
    instance.on(HlsPlayer.Events.ERROR, (_event, data) => {
      if (!data || !data.fatal) return
      // Anything hls.js cannot recover from: the MP4 flavors, as a browser without MSE would.
      instance.destroy()
      hls = null
      useMp4()
      if (config.autoplay || loading) play()
    })
    instance.loadSource(config.hls)
    instance.attachMedia(video)
    startApplied = true
    if (config.autoplay) startLoading()
  } else if (config.hls && video.canPlayType('application/vnd.apple.mpegurl')) {
    dropSources()
    video.preload = config.autoplay ? 'auto' : 'metadata'
    video.src = config.hls
  } else {
    useMp4()
  }

  if (config.subtitles !== null && config.subtitles !== undefined) {
    const track = video.textTracks[config.subtitles]
    if (track) track.mode = 'showing'
  }

  video.addEventListener('loadedmetadata', () => {
    if (startApplied) return
    startApplied = true
    const end = duration()
    if (end && config.startTime < end) video.currentTime = config.startTime
  })
  video.addEventListener('play', () => {
    startLoading()
    root.className += root.className.indexOf(' started') === -1 ? ' started' : ''
    countView()
    post('play')
  })
  video.addEventListener('pause', () => post('pause'))
  video.addEventListener('ended', () => post('ended'))
  video.addEventListener('timeupdate', () => post('timeupdate'))

  window.addEventListener('message', (event) => {
    if (!parentWindow || event.source !== parentWindow) return
    const data: unknown = event.data
    if (!data || typeof data !== 'object') return
    const command = data as { mediactl?: unknown; time?: unknown }
    if (typeof command.mediactl !== 'string') return
    if (command.mediactl === 'play') play()
    else if (command.mediactl === 'pause') video.pause()
    else if (command.mediactl === 'seek') seek(Number(command.time))
  })

  if (config.autoplay) {
    video.muted = true
    play()
  }
  root.setAttribute('data-state', 'ready')
  post('ready')
}

/**
 * The start time a share link asks for: `t` in the query (`?t=90`) or in the fragment (`#t=90`, which no server
 * sees), in seconds (`90`, `90s`, `12.5`); null when the address names none. It wins over the behavior's.
 */
function linkedStart(address: Location): number | null {
  const value = new URLSearchParams(address.hash.slice(1)).get('t') ?? new URLSearchParams(address.search).get('t')
  const match = value ? /^(\d+(?:\.\d+)?)s?$/.exec(value) : null
  return match ? Number(match[1]) : null
}

const playerRoot = document.getElementById('player')
const playerVideo = document.getElementById('video')
const holder = document.getElementById('player-config')
if (playerRoot && playerVideo instanceof HTMLVideoElement && holder) {
  const config = JSON.parse(holder.textContent || '{}') as PlayerConfig
  const start = linkedStart(location)
  playerPage(playerRoot, playerVideo, start === null ? config : { ...config, startTime: start })
}
