/**
 * The JavaScript embed of a widget (`GET /embed/<widget>.js`). The route wraps this bundle in
 * `(function (settings) { ... })(<the widget's settings>)` (plugins/player/embed.script.ts), so
 * one cached bundle serves every widget. It inserts, where the `<script>` element stands
 * (`document.currentScript`; at the end of the body when it cannot be found), an iframe of the
 * player page at the widget's size that shrinks with its container (at most 100 % wide, its
 * aspect ratio kept), and offers `window.mediactl.player(<widget slug>)`, a small controller
 * over the player's postMessage API:
 *
 * - `play()`, `pause()`, `seek(seconds)`: commands, sent to the player's origin only, queued
 *   until the player is ready;
 * - `on(event, fn)` / `off(event, fn)`: `ready`, `play`, `pause`, `ended`, `timeupdate`, each
 *   called with the player's message `{ mediactl, widget, resource, currentTime, duration }`,
 *   accepted from this iframe and the player's origin only;
 * - `currentTime`, `duration`, `ready`: the latest values the player reported;
 * - `element`, `iframe`: what was inserted.
 *
 * With the same widget embedded several times, `player(slug, n)` gives the n-th (from 0).
 */

/** What the route puts around the bundle (`EmbedTarget` of embed.script.ts, with the player's origin). */
interface EmbedSettings {
  widget: string
  page: string
  origin: string
  width: number
  height: number
  title: string
}

/** The player's message (docs/pages.md, postMessage API). */
interface PlayerMessage {
  mediactl: string
  currentTime?: unknown
  duration?: unknown
}

type Listener = (this: EmbeddedPlayer, message: PlayerMessage) => void

interface EmbeddedPlayer {
  element: HTMLDivElement
  iframe: HTMLIFrameElement
  ready: boolean
  currentTime: number
  duration: number | null
  play(): EmbeddedPlayer
  pause(): EmbeddedPlayer
  seek(time: number): EmbeddedPlayer
  on(event: string, fn: Listener): EmbeddedPlayer
  off(event: string, fn: Listener): EmbeddedPlayer
}

/** `window.mediactl`, shared by every embed of the page (each script adds its own). */
interface EmbedApi {
  embeds?: Record<string, EmbeddedPlayer[]>
  player?: (widget: string, index?: number) => EmbeddedPlayer | null
}

declare global {
  interface Window {
    mediactl?: EmbedApi
  }
}

// The parameter of the function the route wraps this bundle in.
declare const settings: EmbedSettings

const script = document.currentScript
const box = document.createElement('div')
box.className = 'mediactl-player'
box.setAttribute('data-mediactl-widget', settings.widget)
box.style.cssText = `position:relative;display:block;width:${settings.width}px;max-width:100%`
const sizer = document.createElement('div')
sizer.style.cssText = `position:relative;width:100%;height:0;padding-top:${(settings.height / settings.width) * 100}%`
const frame = document.createElement('iframe')
frame.src = settings.page
frame.title = settings.title
frame.width = String(settings.width)
frame.height = String(settings.height)
frame.setAttribute('allow', 'autoplay; fullscreen; picture-in-picture')
frame.setAttribute('allowfullscreen', '')
frame.style.cssText = 'position:absolute;top:0;left:0;width:100%;height:100%;border:0'
sizer.appendChild(frame)
box.appendChild(sizer)
if (script && script.parentNode) script.parentNode.insertBefore(box, script)
else (document.body || document.documentElement).appendChild(box)

const listeners: Record<string, Listener[]> = {}
let pending: object[] = []
const player: EmbeddedPlayer = {
  element: box,
  iframe: frame,
  ready: false,
  currentTime: 0,
  duration: null,
  play: () => send({ mediactl: 'play' }),
  pause: () => send({ mediactl: 'pause' }),
  seek: (time) => send({ mediactl: 'seek', time: Number(time) }),
  on(event, fn) {
    ;(listeners[event] = listeners[event] || []).push(fn)
    return player
  },
  off(event, fn) {
    const list = listeners[event] || []
    for (let i = list.length - 1; i >= 0; i--) if (list[i] === fn) list.splice(i, 1)
    return player
  },
}

/** Posts a command to the player's origin, or keeps it until the player said it is ready. */
function send(command: object): EmbeddedPlayer {
  if (!player.ready || !frame.contentWindow) pending.push(command)
  else frame.contentWindow.postMessage(command, settings.origin)
  return player
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (event.source !== frame.contentWindow || event.origin !== settings.origin) return
  const data = event.data as PlayerMessage | null
  if (!data || typeof data !== 'object' || typeof data.mediactl !== 'string') return
  if (typeof data.currentTime === 'number') player.currentTime = data.currentTime
  if (typeof data.duration === 'number') player.duration = data.duration
  if (data.mediactl === 'ready' && !player.ready) {
    player.ready = true
    const queued = pending
    pending = []
    for (const command of queued) send(command)
  }
  for (const listener of (listeners[data.mediactl] || []).slice()) {
    // A host page's listener that throws must not stop the others: rethrown apart, it still shows in the console.
    try {
      listener.call(player, data)
    } catch (error) {
      setTimeout(() => {
        throw error
      })
    }
  }
})

const api = (window.mediactl = window.mediactl || {})
const embeds = (api.embeds = api.embeds || {})
;(embeds[settings.widget] = embeds[settings.widget] || []).push(player)
if (typeof api.player !== 'function') {
  api.player = (widget, index) => {
    const list = embeds[widget]
    return (list && list[index || 0]) || null
  }
}

export {}
