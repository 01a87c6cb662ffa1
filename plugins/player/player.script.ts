import { createHash } from 'node:crypto'

/**
 * The player page's own script, kept as a TypeScript string (the build copies no other file
 * into dist/) and served as `/player/assets/player-<hash>.js`: no inline script, so the page's
 * CSP allows only scripts of this site. It reads the page's settings from
 * `<script type="application/json" id="player-config">` (never executed) and:
 *
 * - picks the source: HLS through hls.js when `Hls.isSupported()` (Media Source Extensions),
 *   else native HLS when the browser plays `application/vnd.apple.mpegurl` (Safari, iOS), else
 *   the MP4 flavor that best fits the player's height (the `<source>`s of the markup, which also
 *   serve browsers without scripts); a fatal hls.js error falls back to the MP4s;
 * - loads nothing before playback unless the behavior autoplays (muted: browsers allow it);
 * - applies the start time, and shows the default subtitle track;
 * - counts a view on the first `play` of the page load (`POST` of the view URL, once);
 * - speaks the postMessage API to its parent window (docs/api.md, The player page): events
 *   `{ mediactl: 'ready' | 'play' | 'pause' | 'ended' | 'timeupdate', widget, resource,
 *   currentTime, duration }` posted to any origin, and commands `{ mediactl: 'play' | 'pause'
 *   | 'seek', time }` accepted from the parent window only.
 */
export const PLAYER_SCRIPT = `(function () {
  'use strict'
  var root = document.getElementById('player')
  var video = document.getElementById('video')
  var holder = document.getElementById('player-config')
  if (!root || !video || !holder) return
  var config = JSON.parse(holder.textContent || '{}')
  var parentWindow = window.parent !== window ? window.parent : null
  var hls = null
  var loading = false
  var counted = false
  var startApplied = !(config.startTime > 0)

  function duration() {
    return isFinite(video.duration) && video.duration > 0 ? video.duration : config.duration
  }

  function post(type) {
    if (!parentWindow) return
    parentWindow.postMessage({
      mediactl: type,
      widget: config.widget,
      resource: config.resource,
      currentTime: video.currentTime,
      duration: duration()
    }, '*')
  }

  /** The MP4 of the markup that best fits: the smallest at least as tall as the player's pixels, else the largest. */
  function bestSource() {
    var sources = config.sources || []
    if (!sources.length) return null
    var wanted = (root.clientHeight || 360) * (window.devicePixelRatio || 1)
    var best = null
    for (var i = 0; i < sources.length; i++) {
      var s = sources[i]
      if (s.height && s.height >= wanted && (!best || s.height < best.height)) best = s
    }
    return best || sources[0]
  }

  function dropSources() {
    var nodes = video.querySelectorAll('source')
    for (var i = 0; i < nodes.length; i++) nodes[i].parentNode.removeChild(nodes[i])
  }

  function useMp4() {
    var source = bestSource()
    if (!source) return
    dropSources()
    video.preload = config.autoplay ? 'auto' : 'metadata'
    video.src = source.url
  }

  function startLoading(position) {
    if (!hls || loading) return
    loading = true
    hls.startLoad(typeof position === 'number' ? position : (config.startTime > 0 ? config.startTime : -1))
  }

  if (config.hls && window.Hls && window.Hls.isSupported()) {
    dropSources()
    var HlsPlayer = window.Hls
    hls = new HlsPlayer({
      autoStartLoad: false,
      startPosition: config.startTime > 0 ? config.startTime : -1,
      capLevelToPlayerSize: true
    })
    hls.on(HlsPlayer.Events.ERROR, function (event, data) {
      if (!data || !data.fatal) return
      // Anything hls.js cannot recover from: the MP4 flavors, as a browser without MSE would.
      hls.destroy()
      hls = null
      useMp4()
      if (config.autoplay || loading) play()
    })
    hls.loadSource(config.hls)
    hls.attachMedia(video)
    startApplied = true
    if (config.autoplay) startLoading()
  } else if (config.hls && video.canPlayType('application/vnd.apple.mpegurl')) {
    dropSources()
    video.preload = config.autoplay ? 'auto' : 'metadata'
    video.src = config.hls
  } else {
    useMp4()
  }

  function play() {
    startLoading()
    var started = video.play()
    if (started && started.catch) {
      started.catch(function (error) {
        // Refused with sound (no user gesture): muted, as browsers allow.
        if (error && error.name === 'NotAllowedError' && !video.muted) {
          video.muted = true
          video.play().catch(function () {})
        }
      })
    }
  }

  function seek(time) {
    if (typeof time !== 'number' || !isFinite(time) || time < 0) return
    var end = duration()
    if (end && time > end) time = end
    startApplied = true
    if (hls && !loading) startLoading(time)
    video.currentTime = time
  }

  function countView() {
    if (counted || !config.views) return
    counted = true
    try {
      fetch(config.views, { method: 'POST', keepalive: true, credentials: 'omit', cache: 'no-store' })
        .catch(function () {})
    } catch (e) {}
  }

  var tracks = video.textTracks
  function showDefaultTrack() {
    if (config.subtitles === null || config.subtitles === undefined) return
    for (var i = 0; i < tracks.length; i++) {
      if (i === config.subtitles) tracks[i].mode = 'showing'
    }
  }
  showDefaultTrack()

  video.addEventListener('loadedmetadata', function () {
    if (startApplied) return
    startApplied = true
    var end = duration()
    if (end && config.startTime < end) video.currentTime = config.startTime
  })
  video.addEventListener('play', function () {
    startLoading()
    root.className += root.className.indexOf(' started') === -1 ? ' started' : ''
    countView()
    post('play')
  })
  video.addEventListener('pause', function () { post('pause') })
  video.addEventListener('ended', function () { post('ended') })
  video.addEventListener('timeupdate', function () { post('timeupdate') })

  window.addEventListener('message', function (event) {
    if (!parentWindow || event.source !== parentWindow) return
    var data = event.data
    if (!data || typeof data !== 'object' || typeof data.mediactl !== 'string') return
    if (data.mediactl === 'play') play()
    else if (data.mediactl === 'pause') video.pause()
    else if (data.mediactl === 'seek') seek(Number(data.time))
  })

  if (config.autoplay) {
    video.muted = true
    play()
  }
  root.setAttribute('data-state', 'ready')
  post('ready')
})()
`

/** Changes whenever the script does: its URL carries it, so browsers may cache the script for good. */
export const PLAYER_SCRIPT_HASH = createHash('sha256').update(PLAYER_SCRIPT).digest('hex').slice(0, 16)
