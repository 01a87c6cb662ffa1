import { scriptJson } from './script-json.js'

/** What the script of one widget inserts. */
export interface EmbedTarget {
  /** The slug of the widget (`window.mediactl.player(<slug>)`). */
  widget: string
  /** Absolute URL of the widget's player page (with the token the script was asked with, if any). */
  page: string
  width: number
  height: number
  /** The iframe's title: the widget's name. */
  title: string
}

/**
 * The JavaScript embed of a widget (`GET /embed/<widget>.js`): inserts, where the `<script>`
 * element stands (`document.currentScript`; at the end of the body when it cannot be found),
 * an iframe of the player page at the widget's size that shrinks with its container (at most
 * 100 % wide, its aspect ratio kept), and offers `window.mediactl.player(<widget slug>)`, a
 * small controller over the player's postMessage API:
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
export function embedScript(target: EmbedTarget): string {
  const settings = scriptJson({ ...target, origin: new URL(target.page).origin })
  return `/* mediactl player embed: docs/api.md, The player page */
(function () {
  'use strict'
  var settings = ${settings}
  var script = document.currentScript
  var ratio = (settings.height / settings.width) * 100
  var box = document.createElement('div')
  box.className = 'mediactl-player'
  box.setAttribute('data-mediactl-widget', settings.widget)
  box.style.cssText = 'position:relative;display:block;width:' + settings.width + 'px;max-width:100%'
  var sizer = document.createElement('div')
  sizer.style.cssText = 'position:relative;width:100%;height:0;padding-top:' + ratio + '%'
  var frame = document.createElement('iframe')
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

  var listeners = {}
  var pending = []
  var player = {
    element: box,
    iframe: frame,
    ready: false,
    currentTime: 0,
    duration: null,
    play: function () { send({ mediactl: 'play' }); return player },
    pause: function () { send({ mediactl: 'pause' }); return player },
    seek: function (time) { send({ mediactl: 'seek', time: Number(time) }); return player },
    on: function (event, fn) { (listeners[event] = listeners[event] || []).push(fn); return player },
    off: function (event, fn) {
      var list = listeners[event] || []
      for (var i = list.length - 1; i >= 0; i--) if (list[i] === fn) list.splice(i, 1)
      return player
    }
  }
  function send(command) {
    if (!player.ready || !frame.contentWindow) pending.push(command)
    else frame.contentWindow.postMessage(command, settings.origin)
  }
  window.addEventListener('message', function (event) {
    if (event.source !== frame.contentWindow || event.origin !== settings.origin) return
    var data = event.data
    if (!data || typeof data !== 'object' || typeof data.mediactl !== 'string') return
    if (typeof data.currentTime === 'number') player.currentTime = data.currentTime
    if (typeof data.duration === 'number') player.duration = data.duration
    if (data.mediactl === 'ready' && !player.ready) {
      player.ready = true
      var queued = pending
      pending = []
      for (var i = 0; i < queued.length; i++) send(queued[i])
    }
    var list = (listeners[data.mediactl] || []).slice()
    for (var j = 0; j < list.length; j++) {
      try { list[j].call(player, data) } catch (e) { setTimeout(function () { throw e }) }
    }
  })

  var api = window.mediactl = window.mediactl || {}
  var embeds = api.embeds = api.embeds || {}
  ;(embeds[settings.widget] = embeds[settings.widget] || []).push(player)
  if (typeof api.player !== 'function') {
    api.player = function (widget, index) {
      var list = api.embeds[widget]
      return (list && list[index || 0]) || null
    }
  }
})()
`
}
