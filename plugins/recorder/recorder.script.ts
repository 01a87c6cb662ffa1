import { createHash } from 'node:crypto'
import { WEBM_DURATION_SCRIPT } from './webm-duration.script.js'

/**
 * The recorder page's script, kept as a TypeScript string (the build copies no other file
 * into dist/) and served from our own origin: the page's CSP runs no inline script, so the
 * page hands its data over in `data-*` attributes of `#recorder`.
 *
 * What it does: asks for the camera and microphone (or the microphone alone) when recording
 * starts, shows the live picture muted, records with MediaRecorder (WebM, the first type the
 * browser supports), shows the time, lets the recording be played back before it is sent,
 * then on Send spends the recorder code for upload links and posts the recording to the json
 * link in pieces (`chunk`, `chunks`, `name`, the bytes as `file[path]`), showing progress and
 * finally what the server answered. `#recorder[data-state]` says where it is (idle,
 * starting, recording, recorded, sending, sent, error) and `#alert[data-problem]` why it
 * stopped (unsupported, insecure, denied, absent, busy, failed, refused, upload).
 */
const SCRIPT_BODY = `(function () {
  'use strict'
  var root = document.getElementById('recorder')
  if (!root) return
  var linksUrl = root.getAttribute('data-upload-links')
  var toggle = document.getElementById('toggle')
  var sendButton = document.getElementById('send')
  var preview = document.getElementById('preview')
  var playback = document.getElementById('playback')
  var timer = document.getElementById('timer')
  var bar = document.getElementById('progress')
  var status = document.getElementById('status')
  var alertBox = document.getElementById('alert')
  var kinds = document.querySelectorAll('input[name="kind"]')

  /** WebM first (the encoder reads it everywhere); MP4 for browsers that record nothing else. */
  var TYPES = {
    video: ['video/webm;codecs=vp8,opus', 'video/webm;codecs=vp9,opus', 'video/webm', 'video/mp4'],
    audio: ['audio/webm;codecs=opus', 'audio/webm', 'audio/mp4']
  }
  var WORDS = {
    video: { devices: 'camera and microphone', device: 'camera or microphone' },
    audio: { devices: 'microphone', device: 'microphone' }
  }

  var stream = null
  var recorder = null
  var pieces = []
  var startedAt = 0
  var ticking = null
  var recording = null
  var jsonLink = null
  var busy = false

  function setState(state) {
    root.setAttribute('data-state', state)
  }

  function say(text) {
    status.textContent = text
  }

  function warn(problem, text) {
    alertBox.setAttribute('data-problem', problem)
    alertBox.textContent = text
    alertBox.hidden = false
  }

  function clearAlert() {
    alertBox.removeAttribute('data-problem')
    alertBox.textContent = ''
    alertBox.hidden = true
  }

  function chosenKind() {
    for (var i = 0; i < kinds.length; i++) if (kinds[i].checked) return kinds[i].value
    return 'video'
  }

  function lockKinds(locked) {
    for (var i = 0; i < kinds.length; i++) kinds[i].disabled = locked
  }

  function clock(milliseconds) {
    var seconds = Math.floor(milliseconds / 1000)
    var rest = seconds % 60
    return Math.floor(seconds / 60) + ':' + (rest < 10 ? '0' : '') + rest
  }

  function typeFor(kind) {
    if (typeof MediaRecorder.isTypeSupported !== 'function') return ''
    var list = TYPES[kind]
    for (var i = 0; i < list.length; i++) if (MediaRecorder.isTypeSupported(list[i])) return list[i]
    return null
  }

  function stopDevices() {
    if (stream) stream.getTracks().forEach(function (track) { track.stop() })
    stream = null
    preview.srcObject = null
    preview.hidden = true
  }

  /** Can this browser record at all? Says why not, once, and disables the recorder. */
  function unsupported() {
    var problem = null
    if (!window.isSecureContext) {
      problem = ['insecure', 'This recorder needs a secure (https) address to use the camera and microphone.']
    } else if (!navigator.mediaDevices || typeof navigator.mediaDevices.getUserMedia !== 'function') {
      problem = ['unsupported', 'This browser cannot use a camera or microphone here. Try another browser.']
    } else if (typeof window.MediaRecorder !== 'function') {
      problem = ['unsupported', 'This browser cannot record (MediaRecorder is not supported). Try a recent Chrome, Edge or Firefox.']
    }
    if (!problem) return false
    warn(problem[0], problem[1])
    toggle.disabled = true
    sendButton.disabled = true
    lockKinds(true)
    setState('error')
    return true
  }

  function deviceProblem(error, kind) {
    var name = error && error.name
    var words = WORDS[kind]
    if (name === 'NotAllowedError' || name === 'PermissionDeniedError' || name === 'SecurityError') {
      return ['denied', 'Access to the ' + words.devices + ' was refused. Allow this page to use them (in the browser\\'s address bar or site settings), then press Start recording again.']
    }
    if (name === 'NotFoundError' || name === 'DevicesNotFoundError' || name === 'OverconstrainedError') {
      return ['absent', kind === 'video'
        ? 'No camera or microphone was found. Connect one and press Start recording again, or choose Sound only.'
        : 'No microphone was found. Connect one, then press Start recording again.']
    }
    if (name === 'NotReadableError' || name === 'TrackStartError' || name === 'AbortError') {
      return ['busy', 'The ' + words.device + ' could not be used: another application may be using it. Close it, then press Start recording again.']
    }
    return ['failed', 'The ' + words.device + ' could not be started' + (error && error.message ? ': ' + error.message : '.')]
  }

  function tick() {
    timer.textContent = clock(performance.now() - startedAt)
  }

  async function start() {
    clearAlert()
    var kind = chosenKind()
    var type = typeFor(kind)
    if (type === null) {
      warn('unsupported', 'This browser cannot record ' + (kind === 'video' ? 'video' : 'sound') + ' in a format the server reads (WebM or MP4).')
      return
    }
    busy = true
    toggle.disabled = true
    sendButton.disabled = true
    lockKinds(true)
    setState('starting')
    say('Asking for the ' + WORDS[kind].devices + '...')
    try {
      stream = await navigator.mediaDevices.getUserMedia(kind === 'video' ? { video: true, audio: true } : { audio: true })
    } catch (error) {
      var problem = deviceProblem(error, kind)
      busy = false
      toggle.disabled = false
      sendButton.disabled = !recording
      lockKinds(false)
      setState(recording ? 'recorded' : 'error')
      say('')
      warn(problem[0], problem[1])
      return
    }
    if (kind === 'video') {
      preview.srcObject = stream
      preview.hidden = false
      preview.play().catch(function () {})
    }
    try {
      recorder = type ? new MediaRecorder(stream, { mimeType: type }) : new MediaRecorder(stream)
    } catch (error) {
      stopDevices()
      busy = false
      toggle.disabled = false
      lockKinds(false)
      setState('error')
      say('')
      warn('unsupported', 'This browser cannot record ' + (kind === 'video' ? 'video' : 'sound') + ' here' + (error && error.message ? ': ' + error.message : '.'))
      return
    }
    pieces = []
    recorder.ondataavailable = function (event) {
      if (event.data && event.data.size) pieces.push(event.data)
    }
    recorder.onerror = function (event) {
      var error = event.error
      warn('failed', 'The recording failed' + (error && error.message ? ': ' + error.message : '.'))
    }
    recorder.onstop = function () { finish(kind, recorder.mimeType || type) }
    // Pieces every second: a long recording is not handed over in one block at the end.
    recorder.start(1000)
    startedAt = performance.now()
    timer.textContent = '0:00'
    ticking = setInterval(tick, 250)
    if (playback.src) URL.revokeObjectURL(playback.src)
    playback.removeAttribute('src')
    playback.hidden = true
    recording = null
    setState('recording')
    say('Recording...')
    toggle.textContent = 'Stop recording'
    toggle.setAttribute('aria-pressed', 'true')
    toggle.disabled = false
    busy = false
  }

  function stop() {
    if (recorder && recorder.state !== 'inactive') {
      toggle.disabled = true
      recorder.stop()
    }
  }

  function recordingName() {
    var now = new Date()
    var two = function (n) { return (n < 10 ? '0' : '') + n }
    return 'recording-' + now.getFullYear() + '-' + two(now.getMonth() + 1) + '-' + two(now.getDate()) + '-' +
      two(now.getHours()) + two(now.getMinutes()) + two(now.getSeconds())
  }

  async function finish(kind, type) {
    var elapsed = performance.now() - startedAt
    clearInterval(ticking)
    timer.textContent = clock(elapsed)
    stopDevices()
    recorder = null
    var base = String(type).split(';')[0] || (kind === 'video' ? 'video/webm' : 'audio/webm')
    var blob = new Blob(pieces, { type: base })
    pieces = []
    if (/webm/.test(base)) blob = await withDuration(blob, elapsed)
    recording = { blob: blob, name: recordingName() + (/mp4/.test(base) ? (kind === 'video' ? '.mp4' : '.m4a') : '.webm') }
    playback.src = URL.createObjectURL(blob)
    playback.hidden = false
    toggle.textContent = 'Record again'
    toggle.setAttribute('aria-pressed', 'false')
    toggle.disabled = false
    sendButton.disabled = blob.size === 0
    lockKinds(false)
    if (blob.size === 0) {
      setState('error')
      say('')
      warn('failed', 'Nothing was recorded. Press Record again.')
      return
    }
    setState('recorded')
    say('Recorded ' + clock(elapsed) + '. Play it back, then press Send, or record again.')
  }

  ${WEBM_DURATION_SCRIPT.trim().replace(/\n/g, '\n  ')}

  /** The recording with its duration written in (see webmWithDuration); as it was when that cannot be done. */
  async function withDuration(blob, milliseconds) {
    try {
      var head = new Uint8Array(await blob.slice(0, 65536).arrayBuffer())
      var parts = webmWithDuration(head, milliseconds)
      return parts ? new Blob(parts.concat([blob.slice(head.length)]), { type: blob.type }) : blob
    } catch (error) {
      return blob
    }
  }

  function Failure(problem, message) {
    this.problem = problem
    this.message = message
  }

  /** Spends the recorder code: the json upload link, or a Failure saying why not. */
  async function uploadLink() {
    var response
    try {
      response = await fetch(linksUrl, { method: 'POST', headers: { Accept: 'application/xml' }, cache: 'no-store' })
    } catch (error) {
      throw new Failure('upload', 'The server could not be reached. Check the connection, then press Send again.')
    }
    var text = await response.text()
    var doc = new DOMParser().parseFromString(text, 'application/xml')
    if (!response.ok) {
      if (response.status === 404 || response.status === 410 || response.status === 412) {
        throw new Failure('refused', 'This recorder can no longer send: it was already used or it has expired (a recorder sends one recording). Reload the page that shows it to get a new one.')
      }
      if (response.status === 401 || response.status === 403) {
        throw new Failure('refused', 'The owner of this recorder can no longer receive recordings.')
      }
      var message = doc.getElementsByTagName('message')[0]
      throw new Failure('upload', 'The recording could not be sent: ' + (message ? message.textContent : 'the server answered ' + response.status + '.'))
    }
    var links = doc.getElementsByTagName('link')
    for (var i = 0; i < links.length; i++) {
      if (links[i].getAttribute('rel') === 'json') return links[i].getAttribute('href')
    }
    throw new Failure('upload', 'The recording could not be sent: the server answered no upload link.')
  }

  function postPiece(url, form, onProgress) {
    return new Promise(function (resolve) {
      var xhr = new XMLHttpRequest()
      xhr.open('POST', url)
      xhr.setRequestHeader('Accept', 'application/json')
      xhr.upload.onprogress = function (event) { onProgress(event.loaded) }
      xhr.onload = function () { resolve({ status: xhr.status, text: xhr.responseText }) }
      xhr.onerror = xhr.onabort = xhr.ontimeout = function () { resolve({ status: 0, text: '' }) }
      xhr.send(form)
    })
  }

  function wait(milliseconds) {
    return new Promise(function (resolve) { setTimeout(resolve, milliseconds) })
  }

  function parse(text) {
    try {
      return JSON.parse(text)
    } catch (error) {
      return null
    }
  }

  /** Posts the recording in pieces, in order; answers the json endpoint's result. */
  async function upload(url, blob, name) {
    // Read when sending, not at load: the browser test lowers the piece size to see a short recording go in pieces.
    var pieceSize = Number(root.getAttribute('data-piece-size')) || 1048576
    var maxPieces = Number(root.getAttribute('data-max-pieces')) || 10000
    var size = Math.max(pieceSize, Math.ceil(blob.size / maxPieces))
    var count = Math.max(1, Math.ceil(blob.size / size))
    for (var index = 0; index < count; index++) {
      var offset = index * size
      var piece = blob.slice(offset, Math.min(blob.size, offset + size))
      var form = new FormData()
      form.append('chunk', String(index))
      form.append('chunks', String(count))
      form.append('name', name)
      form.append('file[path]', piece, name)
      var answer
      // A network failure or a proxy's 5xx: the same piece again (it replaces the earlier one), twice at most.
      for (var attempt = 0; ; attempt++) {
        answer = await postPiece(url, form, function (loaded) {
          bar.value = Math.min(99, Math.floor(((offset + Math.min(loaded, piece.size)) * 100) / blob.size))
        })
        if (!(answer.status === 0 || answer.status === 502 || answer.status === 503 || answer.status === 504) || attempt >= 2) break
        await wait(1000 * (attempt + 1))
      }
      var body = parse(answer.text)
      if (answer.status !== 200 || !body || body.error) {
        var text = body && body.error && body.error.message
        if (!text) text = answer.status ? 'the server answered ' + answer.status + '.' : 'the server could not be reached.'
        throw new Failure('upload', 'The recording could not be sent: ' + text)
      }
      bar.value = Math.floor(((offset + piece.size) * 100) / blob.size)
      if (index === count - 1) {
        if (!body.result) throw new Failure('upload', 'The recording could not be sent: the server answered something unexpected.')
        return body.result
      }
    }
  }

  async function send() {
    if (!recording || busy) return
    busy = true
    clearAlert()
    toggle.disabled = true
    sendButton.disabled = true
    lockKinds(true)
    bar.hidden = false
    bar.value = 0
    setState('sending')
    say('Sending ' + recording.name + '...')
    try {
      // The code is spent once: after a failed upload, Send (this recording or a new one) goes to the same link.
      if (!jsonLink) jsonLink = await uploadLink()
      var result = await upload(jsonLink, recording.blob, recording.name)
      bar.value = 100
      root.setAttribute('data-file', result.name)
      setState('sent')
      say('Sent: ' + result.name + ' (' + result.size + ' bytes). It is now being prepared. To record again, reload the page that shows this recorder.')
      toggle.hidden = true
    } catch (failure) {
      var refused = failure instanceof Failure && failure.problem === 'refused'
      var message = failure instanceof Failure ? failure.message : 'The recording could not be sent: ' + failure
      setState('error')
      say('')
      warn(failure instanceof Failure ? failure.problem : 'upload', message)
      bar.hidden = true
      // A refused code never comes back; anything else may work on a second try.
      toggle.disabled = refused
      sendButton.disabled = refused
      lockKinds(refused)
      if (refused) toggle.hidden = true
    } finally {
      busy = false
    }
  }

  if (unsupported()) return
  toggle.disabled = false
  lockKinds(false)
  setState('idle')
  toggle.addEventListener('click', function () {
    if (busy) return
    if (recorder && recorder.state !== 'inactive') stop()
    else start()
  })
  sendButton.addEventListener('click', send)
})()
`

/** The recorder page's script. */
export const RECORDER_SCRIPT = SCRIPT_BODY

/** Changes whenever the script does: it is in the script's file name, so browsers may keep it for good. */
export const RECORDER_SCRIPT_HASH = createHash('sha256').update(RECORDER_SCRIPT).digest('hex').slice(0, 16)

/** The script's file name under `/recorder/assets/`. */
export const RECORDER_SCRIPT_FILE = `recorder-${RECORDER_SCRIPT_HASH}.js`
