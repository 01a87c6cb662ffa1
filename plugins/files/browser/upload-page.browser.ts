/**
 * The upload page's script (`/upload/html`, served as `/upload/assets/upload-page.js?v=<hash>`):
 * Flow.js sends the chosen or dropped file to the json endpoint in pieces (`chunk`, `chunks`,
 * `name`, `error=true`, the file as `file[path]`; Flow.js adds its own `flow*` fields, which the
 * endpoint ignores), one at a time and in order, shows the progress, then the JSON result or
 * error. Without Flow.js (script blocked, library missing, a browser without the File API)
 * nothing is intercepted and the form posts the whole file.
 */

/** The little of Flow.js 2 (window.Flow, its own script on the page) this page uses. */
interface FlowFile {
  name: string
  chunks: unknown[]
  progress(): number
}
interface FlowChunk {
  offset: number
  xhr?: XMLHttpRequest | null
}
interface FlowOptions {
  target: string
  fileParameterName: string
  chunkSize: number
  forceChunkSize: boolean
  simultaneousUploads: number
  singleFile: boolean
  allowDuplicateUploads: boolean
  testChunks: boolean
  query: (file: FlowFile, chunk: FlowChunk) => Record<string, string | number>
  permanentErrors: number[]
  maxChunkRetries: number
  chunkRetryInterval: number
  progressCallbacksInterval: number
}
interface FlowUploader {
  /** False in a browser without the File API: the plain form then does the upload. */
  support: boolean
  on(event: 'fileProgress', callback: (file: FlowFile) => void): void
  on(event: 'fileSuccess', callback: (file: FlowFile, message: string) => void): void
  on(event: 'fileError', callback: (file: FlowFile, message: string, chunk: FlowChunk | undefined) => void): void
  addFile(file: File): void
  upload(): void
  cancel(): void
}

declare global {
  interface Window {
    Flow?: new (options: FlowOptions) => FlowUploader
  }
}

/** What the json endpoint answers: the file, or an error. */
interface Answer {
  result?: { href: string; name: string; size: number }
  error?: { message?: string }
}

type State = 'uploading' | 'done' | 'error'

function parse(text: string): Answer | null {
  try {
    return JSON.parse(text) as Answer | null
  } catch {
    return null
  }
}

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T
}

function uploadPage(form: HTMLFormElement, Flow: NonNullable<Window['Flow']>): void {
  const input = byId<HTMLInputElement>('file')
  const drop = byId<HTMLElement>('drop')
  const button = byId<HTMLButtonElement>('start')
  const bar = byId<HTMLProgressElement>('progress')
  const result = byId<HTMLElement>('result')
  let dropped: File | null = null

  function show(state: State, nodes: (string | Node)[]): void {
    result.className = state === 'error' ? 'error' : state === 'done' ? 'done' : ''
    result.setAttribute('data-state', state)
    result.textContent = ''
    for (const node of nodes) result.appendChild(typeof node === 'string' ? document.createTextNode(node) : node)
  }

  const flow = new Flow({
    target: form.getAttribute('data-url') ?? '',
    fileParameterName: 'file[path]',
    chunkSize: Number(form.getAttribute('data-piece-size')),
    // Every piece at most chunkSize (else the last one may grow to almost twice as much).
    forceChunkSize: true,
    // The server takes the pieces in order only.
    simultaneousUploads: 1,
    singleFile: true,
    allowDuplicateUploads: true,
    testChunks: false,
    query: (file, chunk) => ({ chunk: chunk.offset, chunks: file.chunks.length, name: file.name, error: 'true' }),
    // A refusal is final: report it rather than send the piece again.
    permanentErrors: [400, 401, 403, 404, 406, 412, 413, 415, 500, 501],
    // A network failure or a 5xx of a proxy: the same piece again, twice at most.
    maxChunkRetries: 2,
    chunkRetryInterval: 1000,
    progressCallbacksInterval: 100,
  })
  if (!flow.support) return

  drop.className = 'ready'
  input.required = false

  flow.on('fileProgress', (file) => {
    const percent = Math.floor(file.progress() * 100)
    bar.value = percent
    show('uploading', [`Uploading ${file.name}: ${percent} %`])
  })
  flow.on('fileSuccess', (_file, message) => {
    button.disabled = false
    const answer = parse(message)
    if (!answer || !answer.result) {
      show('error', ['Upload failed: the server answered something unexpected.'])
      return
    }
    bar.value = 100
    const link = document.createElement('a')
    link.href = answer.result.href
    link.textContent = answer.result.name
    show('done', ['Uploaded ', link, ` (${answer.result.size} bytes).`])
  })
  flow.on('fileError', (_file, message, chunk) => {
    button.disabled = false
    const answer = parse(message)
    const status = chunk && chunk.xhr ? chunk.xhr.status : 0
    let text = answer && answer.error && answer.error.message
    if (!text) text = status ? `the server answered ${status}.` : 'the server could not be reached.'
    show('error', [`Upload failed: ${text}`])
  })

  input.addEventListener('change', () => {
    dropped = null
    drop.textContent = 'or drop a file here'
  })
  drop.addEventListener('dragover', (event) => {
    event.preventDefault()
    drop.className = 'ready over'
  })
  drop.addEventListener('dragleave', () => {
    drop.className = 'ready'
  })
  drop.addEventListener('drop', (event) => {
    event.preventDefault()
    drop.className = 'ready'
    const files = event.dataTransfer && event.dataTransfer.files
    if (!files || !files.length) return
    const file = files[files.length - 1]!
    dropped = file
    input.value = ''
    drop.textContent = `Chosen: ${file.name}`
  })

  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (button.disabled) return
    const file = dropped || (input.files && input.files[0])
    if (!file) {
      show('error', ['Choose a file first.'])
      return
    }
    button.disabled = true
    bar.hidden = false
    bar.value = 0
    show('uploading', [`Uploading ${file.name}...`])
    flow.cancel()
    flow.addFile(file)
    flow.upload()
  })
}

const uploadForm = document.getElementById('upload')
const flowLibrary = window.Flow
if (uploadForm instanceof HTMLFormElement && typeof flowLibrary === 'function') uploadPage(uploadForm, flowLibrary)
