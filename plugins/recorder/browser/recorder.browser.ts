/**
 * The recorder page's script (`/recorder/<code>`), served from our own origin as
 * `/recorder/assets/recorder-<hash>.js`: the page's CSP runs no inline script, so the page
 * hands its data over in `data-*` attributes of `#recorder`.
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
import { webmWithDuration } from './webm-duration.js'

type Kind = 'video' | 'audio'
type State = 'idle' | 'starting' | 'recording' | 'recorded' | 'sending' | 'sent' | 'error'
type Problem = 'unsupported' | 'insecure' | 'denied' | 'absent' | 'busy' | 'failed' | 'refused' | 'upload'

/** The file the json upload endpoint made of the recording. */
interface Uploaded {
  name: string
  size: number
}

/** What the json upload endpoint answers to a piece: progress, the file after the last piece, or an error. */
interface PieceBody {
  result?: Uploaded
  error?: { message?: string }
}

/** WebM first (the encoder reads it everywhere); MP4 for browsers that record nothing else. */
const TYPES: Record<Kind, string[]> = {
  video: ['video/webm;codecs=vp8,opus', 'video/webm;codecs=vp9,opus', 'video/webm', 'video/mp4'],
  audio: ['audio/webm;codecs=opus', 'audio/webm', 'audio/mp4'],
}
const WORDS: Record<Kind, { devices: string; device: string }> = {
  video: { devices: 'camera and microphone', device: 'camera or microphone' },
  audio: { devices: 'microphone', device: 'microphone' },
}

/** Why sending stopped, as the page shows it. */
class Failure {
  constructor(
    readonly problem: Problem,
    readonly message: string,
  ) {}
}

/** The `name` and `message` of whatever a browser API threw or rejected with, when it has them. */
const nameOf = (error: unknown): unknown => (error as { name?: unknown } | null | undefined)?.name
const messageOf = (error: unknown): unknown => (error as { message?: unknown } | null | undefined)?.message
/** `: <message>` when the error says something, else a full stop. */
const because = (error: unknown): string => (messageOf(error) ? `: ${String(messageOf(error))}` : '.')

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T
}

function clock(milliseconds: number): string {
  const seconds = Math.floor(milliseconds / 1000)
  const rest = seconds % 60
  return `${Math.floor(seconds / 60)}:${rest < 10 ? '0' : ''}${rest}`
}

function recordingName(): string {
  const now = new Date()
  const two = (n: number): string => `${n < 10 ? '0' : ''}${n}`
  return (
    `recording-${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}-` +
    `${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`
  )
}

function wait(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds))
}

function parse(text: string): PieceBody | null {
  try {
    return JSON.parse(text) as PieceBody | null
  } catch {
    return null
  }
}

/** One piece posted with XMLHttpRequest (fetch reports no upload progress); status 0 when the network failed. */
function postPiece(url: string, form: FormData, onProgress: (loaded: number) => void) {
  return new Promise<{ status: number; text: string }>((resolve) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', url)
    xhr.setRequestHeader('Accept', 'application/json')
    xhr.upload.onprogress = (event) => onProgress(event.loaded)
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText })
    const failed = () => resolve({ status: 0, text: '' })
    xhr.onerror = failed
    xhr.onabort = failed
    xhr.ontimeout = failed
    xhr.send(form)
  })
}

/** The recording with its duration written in (see webmWithDuration); as it was when that cannot be done. */
async function withDuration(blob: Blob, milliseconds: number): Promise<Blob> {
  try {
    const head = new Uint8Array(await blob.slice(0, 65536).arrayBuffer())
    const parts = webmWithDuration(head, milliseconds)
    return parts ? new Blob([...parts, blob.slice(head.length)], { type: blob.type }) : blob
  } catch {
    return blob
  }
}

function recorderPage(root: HTMLElement): void {
  const linksUrl = root.getAttribute('data-upload-links') ?? ''
  const toggle = byId<HTMLButtonElement>('toggle')
  const sendButton = byId<HTMLButtonElement>('send')
  const preview = byId<HTMLVideoElement>('preview')
  const playback = byId<HTMLVideoElement>('playback')
  const timer = byId<HTMLElement>('timer')
  const bar = byId<HTMLProgressElement>('progress')
  const status = byId<HTMLElement>('status')
  const alertBox = byId<HTMLElement>('alert')
  const kinds = document.querySelectorAll<HTMLInputElement>('input[name="kind"]')

  let stream: MediaStream | null = null
  let recorder: MediaRecorder | null = null
  let pieces: Blob[] = []
  let startedAt = 0
  let ticking: number | undefined
  let recording: { blob: Blob; name: string } | null = null
  let jsonLink: string | null = null
  let busy = false

  function setState(state: State): void {
    root.setAttribute('data-state', state)
  }

  function say(text: string): void {
    status.textContent = text
  }

  function warn(problem: Problem, text: string): void {
    alertBox.setAttribute('data-problem', problem)
    alertBox.textContent = text
    alertBox.hidden = false
  }

  function clearAlert(): void {
    alertBox.removeAttribute('data-problem')
    alertBox.textContent = ''
    alertBox.hidden = true
  }

  function chosenKind(): Kind {
    for (const input of kinds) {
      if (input.checked && (input.value === 'video' || input.value === 'audio')) return input.value
    }
    return 'video'
  }

  function lockKinds(locked: boolean): void {
    for (const input of kinds) input.disabled = locked
  }

  /** The first type of `kind` the browser records; '' when it cannot tell (the browser's default); null for none. */
  function typeFor(kind: Kind): string | null {
    if (typeof MediaRecorder.isTypeSupported !== 'function') return ''
    for (const type of TYPES[kind]) if (MediaRecorder.isTypeSupported(type)) return type
    return null
  }

  function stopDevices(): void {
    if (stream) stream.getTracks().forEach((track) => track.stop())
    stream = null
    preview.srcObject = null
    preview.hidden = true
  }

  /** Can this browser record at all? Says why not, once, and disables the recorder. */
  function unsupported(): boolean {
    let problem: [Problem, string] | null = null
    if (!window.isSecureContext) {
      problem = ['insecure', 'This recorder needs a secure (https) address to use the camera and microphone.']
    } else if (!navigator.mediaDevices || typeof navigator.mediaDevices.getUserMedia !== 'function') {
      problem = ['unsupported', 'This browser cannot use a camera or microphone here. Try another browser.']
    } else if (typeof window.MediaRecorder !== 'function') {
      problem = [
        'unsupported',
        'This browser cannot record (MediaRecorder is not supported). Try a recent Chrome, Edge or Firefox.',
      ]
    }
    if (!problem) return false
    warn(problem[0], problem[1])
    toggle.disabled = true
    sendButton.disabled = true
    lockKinds(true)
    setState('error')
    return true
  }

  function deviceProblem(error: unknown, kind: Kind): [Problem, string] {
    const name = nameOf(error)
    const words = WORDS[kind]
    if (name === 'NotAllowedError' || name === 'PermissionDeniedError' || name === 'SecurityError') {
      return [
        'denied',
        `Access to the ${words.devices} was refused. Allow this page to use them (in the browser's address bar or site settings), then press Start recording again.`,
      ]
    }
    if (name === 'NotFoundError' || name === 'DevicesNotFoundError' || name === 'OverconstrainedError') {
      return [
        'absent',
        kind === 'video'
          ? 'No camera or microphone was found. Connect one and press Start recording again, or choose Sound only.'
          : 'No microphone was found. Connect one, then press Start recording again.',
      ]
    }
    if (name === 'NotReadableError' || name === 'TrackStartError' || name === 'AbortError') {
      return [
        'busy',
        `The ${words.device} could not be used: another application may be using it. Close it, then press Start recording again.`,
      ]
    }
    return ['failed', `The ${words.device} could not be started${because(error)}`]
  }

  function tick(): void {
    timer.textContent = clock(performance.now() - startedAt)
  }

  async function start(): Promise<void> {
    clearAlert()
    const kind = chosenKind()
    const type = typeFor(kind)
    if (type === null) {
      warn(
        'unsupported',
        `This browser cannot record ${kind === 'video' ? 'video' : 'sound'} in a format the server reads (WebM or MP4).`,
      )
      return
    }
    busy = true
    toggle.disabled = true
    sendButton.disabled = true
    lockKinds(true)
    setState('starting')
    say(`Asking for the ${WORDS[kind].devices}...`)
    let devices: MediaStream
    try {
      devices = await navigator.mediaDevices.getUserMedia(
        kind === 'video' ? { video: true, audio: true } : { audio: true },
      )
    } catch (error) {
      const problem = deviceProblem(error, kind)
      busy = false
      toggle.disabled = false
      sendButton.disabled = !recording
      lockKinds(false)
      setState(recording ? 'recorded' : 'error')
      say('')
      warn(problem[0], problem[1])
      return
    }
    stream = devices
    if (kind === 'video') {
      preview.srcObject = devices
      preview.hidden = false
      preview.play().catch(() => {})
    }
    let made: MediaRecorder
    try {
      made = type ? new MediaRecorder(devices, { mimeType: type }) : new MediaRecorder(devices)
    } catch (error) {
      stopDevices()
      busy = false
      toggle.disabled = false
      lockKinds(false)
      setState('error')
      say('')
      warn('unsupported', `This browser cannot record ${kind === 'video' ? 'video' : 'sound'} here${because(error)}`)
      return
    }
    recorder = made
    pieces = []
    made.ondataavailable = (event) => {
      if (event.data && event.data.size) pieces.push(event.data)
    }
    made.onerror = (event) => {
      // MediaRecorder's error event carries a DOMException as `error` (not in every DOM typing).
      warn('failed', `The recording failed${because((event as Event & { error?: unknown }).error)}`)
    }
    made.onstop = () => void finish(kind, made.mimeType || type)
    // Pieces every second: a long recording is not handed over in one block at the end.
    made.start(1000)
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

  function stop(): void {
    if (recorder && recorder.state !== 'inactive') {
      toggle.disabled = true
      recorder.stop()
    }
  }

  async function finish(kind: Kind, type: string): Promise<void> {
    const elapsed = performance.now() - startedAt
    clearInterval(ticking)
    timer.textContent = clock(elapsed)
    stopDevices()
    recorder = null
    const base = type.split(';')[0] || (kind === 'video' ? 'video/webm' : 'audio/webm')
    let blob = new Blob(pieces, { type: base })
    pieces = []
    if (/webm/.test(base)) blob = await withDuration(blob, elapsed)
    const extension = /mp4/.test(base) ? (kind === 'video' ? '.mp4' : '.m4a') : '.webm'
    recording = { blob, name: recordingName() + extension }
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
    say(`Recorded ${clock(elapsed)}. Play it back, then press Send, or record again.`)
  }

  /** Spends the recorder code: the json upload link, or a Failure saying why not. */
  async function uploadLink(): Promise<string> {
    let response: Response
    try {
      response = await fetch(linksUrl, { method: 'POST', headers: { Accept: 'application/xml' }, cache: 'no-store' })
    } catch {
      throw new Failure('upload', 'The server could not be reached. Check the connection, then press Send again.')
    }
    const text = await response.text()
    const doc = new DOMParser().parseFromString(text, 'application/xml')
    if (!response.ok) {
      if (response.status === 404 || response.status === 410 || response.status === 412) {
        throw new Failure(
          'refused',
          'This recorder can no longer send: it was already used or it has expired (a recorder sends one recording). Reload the page that shows it to get a new one.',
        )
      }
      if (response.status === 401 || response.status === 403) {
        throw new Failure('refused', 'The owner of this recorder can no longer receive recordings.')
      }
      const message = doc.getElementsByTagName('message')[0]
      throw new Failure(
        'upload',
        `The recording could not be sent: ${message ? message.textContent : `the server answered ${response.status}.`}`,
      )
    }
    for (const link of doc.getElementsByTagName('link')) {
      if (link.getAttribute('rel') === 'json') return link.getAttribute('href') ?? ''
    }
    throw new Failure('upload', 'The recording could not be sent: the server answered no upload link.')
  }

  /** Posts the recording in pieces, in order; answers the json endpoint's result. */
  async function upload(url: string, blob: Blob, name: string): Promise<Uploaded> {
    // Read when sending, not at load: the browser test lowers the piece size to see a short recording go in pieces.
    const pieceSize = Number(root.getAttribute('data-piece-size')) || 1048576
    const maxPieces = Number(root.getAttribute('data-max-pieces')) || 10000
    const size = Math.max(pieceSize, Math.ceil(blob.size / maxPieces))
    const count = Math.max(1, Math.ceil(blob.size / size))
    let result: Uploaded | undefined
    for (let index = 0; index < count; index++) {
      const offset = index * size
      const piece = blob.slice(offset, Math.min(blob.size, offset + size))
      const form = new FormData()
      form.append('chunk', String(index))
      form.append('chunks', String(count))
      form.append('name', name)
      form.append('file[path]', piece, name)
      const post = () =>
        postPiece(url, form, (loaded) => {
          bar.value = Math.min(99, Math.floor(((offset + Math.min(loaded, piece.size)) * 100) / blob.size))
        })
      let answer = await post()
      // A network failure or a proxy's 5xx: the same piece again (it replaces the earlier one), twice at most.
      for (let attempt = 0; [0, 502, 503, 504].includes(answer.status) && attempt < 2; attempt++) {
        await wait(1000 * (attempt + 1))
        answer = await post()
      }
      const body = parse(answer.text)
      if (answer.status !== 200 || !body || body.error) {
        let text = body && body.error && body.error.message
        if (!text) text = answer.status ? `the server answered ${answer.status}.` : 'the server could not be reached.'
        throw new Failure('upload', `The recording could not be sent: ${text}`)
      }
      bar.value = Math.floor(((offset + piece.size) * 100) / blob.size)
      result = body.result
    }
    // Only the last piece's answer carries the file; the others say how far the upload is.
    if (!result)
      throw new Failure('upload', 'The recording could not be sent: the server answered something unexpected.')
    return result
  }

  async function send(): Promise<void> {
    if (!recording || busy) return
    busy = true
    clearAlert()
    toggle.disabled = true
    sendButton.disabled = true
    lockKinds(true)
    bar.hidden = false
    bar.value = 0
    setState('sending')
    say(`Sending ${recording.name}...`)
    try {
      // The code is spent once: after a failed upload, Send (this recording or a new one) goes to the same link.
      if (!jsonLink) jsonLink = await uploadLink()
      const result = await upload(jsonLink, recording.blob, recording.name)
      bar.value = 100
      root.setAttribute('data-file', result.name)
      setState('sent')
      say(
        `Sent: ${result.name} (${result.size} bytes). It is now being prepared. To record again, reload the page that shows this recorder.`,
      )
      toggle.hidden = true
    } catch (failure) {
      const refused = failure instanceof Failure && failure.problem === 'refused'
      const message =
        failure instanceof Failure ? failure.message : `The recording could not be sent: ${String(failure)}`
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
  toggle.addEventListener('click', () => {
    if (busy) return
    if (recorder && recorder.state !== 'inactive') stop()
    else void start()
  })
  sendButton.addEventListener('click', () => void send())
}

const recorderRoot = document.getElementById('recorder')
if (recorderRoot) recorderPage(recorderRoot)
