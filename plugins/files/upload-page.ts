import { createHash } from 'node:crypto'

/**
 * The html upload page behind an upload link, kept as TypeScript strings: the build (tsc)
 * copies no other file into dist/, and the package ships dist/ only. The page is a plain
 * multipart form that works without JavaScript; the script below turns it into a chunked
 * upload with Flow.js (MIT; pieces of `files.upload_piece_size` posted to the json endpoint).
 */

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)
}

/**
 * Headers of every page: the token is in the page's address, so no Referer may carry it
 * away; only our own scripts run, and nothing may frame the page (clickjacking).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
}

export const HTML_TYPE = 'text/html; charset=utf-8'

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:40rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin-top:0}
.target,.expires{color:#4a5264}
form{display:grid;gap:1rem;margin:1.5rem 0}
#drop{display:none;border:2px dashed #b5bccb;border-radius:6px;padding:1rem;text-align:center;color:#4a5264}
#drop.ready{display:block}
#drop.over{border-color:#2f6fdf;background:#eef4ff}
button{justify-self:start;padding:.5rem 1.5rem;font:inherit;border:0;border-radius:4px;background:#2f6fdf;color:#fff;cursor:pointer}
button:disabled{background:#9aa3b5;cursor:default}
progress{width:100%;height:1.2rem}
.done{color:#14703a}
.error{color:#b3261e}
`

/** A complete page around `body`. */
function page(title: string, body: string, scripts: string[] = []): string {
  const tags = scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`).join('\n')
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
${tags}
</body>
</html>
`
}

/** What the page says about where files go. */
export interface PageTarget {
  username: string
  /** The directory's name and slug; null for the user's root directory. */
  directory: { slug: string; name: string } | null
  expiresAt: Date
}

const describeTarget = (target: PageTarget): string =>
  target.directory
    ? `the directory <strong>${escapeHtml(target.directory.name)}</strong> (${escapeHtml(target.directory.slug)})`
    : 'the root directory'

/** The upload form: `token` goes back in the form's action and in the json endpoint's URL. */
export function uploadPage(target: PageTarget, token: string, pieceSize: number, assets: string[]): string {
  const query = `token=${encodeURIComponent(token)}`
  const body = `<h1>Upload a file</h1>
<p class="target" id="target">Into ${describeTarget(target)} of <strong>${escapeHtml(target.username)}</strong>.</p>
<p class="expires">This link works until <time datetime="${target.expiresAt.toISOString()}">${escapeHtml(
    target.expiresAt.toUTCString(),
  )}</time>.</p>
<form id="upload" method="post" enctype="multipart/form-data" action="html?${escapeHtml(query)}"
 data-url="json?${escapeHtml(query)}" data-piece-size="${pieceSize}">
<input type="hidden" name="error" value="true">
<label>File <input type="file" id="file" name="file[path]" required></label>
<div id="drop">or drop a file here</div>
<button type="submit" id="start">Upload</button>
<progress id="progress" max="100" value="0" hidden></progress>
</form>
<p id="result" role="status" aria-live="polite"></p>`
  return page('Upload a file', body, assets)
}

/** The answer of a plain form post: the new file, with its API address. */
export function resultPage(
  target: PageTarget,
  file: { name: string; size: number; href: string },
  back: string,
): string {
  const body = `<h1>File uploaded</h1>
<p class="done" id="result" data-state="done"><a href="${escapeHtml(file.href)}">${escapeHtml(file.name)}</a>
(${file.size} bytes) is in ${describeTarget(target)} of <strong>${escapeHtml(target.username)}</strong>.</p>
<p><a href="${escapeHtml(back)}">Upload another file</a></p>`
  return page('File uploaded', body)
}

/** The answer of a plain form post carrying one piece of a chunked upload. */
export function piecePage(progress: { chunk: number; chunks: number; bytes: number }, back: string): string {
  const body = `<h1>Piece received</h1>
<p id="result" data-state="piece">Piece ${progress.chunk + 1} of ${progress.chunks} received (${progress.bytes} bytes so far).</p>
<p><a href="${escapeHtml(back)}">Back to the upload form</a></p>`
  return page('Piece received', body)
}

/** An error page: the link is not usable (401, 403, 404) or the upload was refused. */
export function errorPage(status: number, message: string, fields: Record<string, string>, back?: string): string {
  const details = Object.entries(fields)
    .map(([name, text]) => `<li><code>${escapeHtml(name)}</code>: ${escapeHtml(text)}</li>`)
    .join('')
  const body = `<h1>${back ? 'Upload failed' : 'Upload link not usable'}</h1>
<p class="error" id="result" data-state="error" data-status="${status}">${escapeHtml(message)}</p>
${details ? `<ul>${details}</ul>` : ''}
${back ? `<p><a href="${escapeHtml(back)}">Back to the upload form</a></p>` : ''}`
  return page(`Error ${status}`, body)
}

/**
 * The page's script: Flow.js sends the chosen or dropped file to the json endpoint in pieces
 * (`chunk`, `chunks`, `name`, `error=true`, the file as `file[path]`; Flow.js adds its own
 * `flow*` fields, which the endpoint ignores), one at a time and in order, shows the progress,
 * then the JSON result or error. Without Flow.js (script blocked, library missing, a browser
 * without the File API) nothing is intercepted and the form posts the whole file.
 */
export const PAGE_SCRIPT = `(function () {
  'use strict'
  var form = document.getElementById('upload')
  if (!form || typeof window.Flow !== 'function') return
  var input = document.getElementById('file')
  var drop = document.getElementById('drop')
  var button = document.getElementById('start')
  var bar = document.getElementById('progress')
  var result = document.getElementById('result')
  var dropped = null

  function show(state, nodes) {
    result.className = state === 'error' ? 'error' : state === 'done' ? 'done' : ''
    result.setAttribute('data-state', state)
    result.textContent = ''
    for (var i = 0; i < nodes.length; i++) {
      result.appendChild(typeof nodes[i] === 'string' ? document.createTextNode(nodes[i]) : nodes[i])
    }
  }

  function parse(text) {
    try {
      return JSON.parse(text)
    } catch (e) {
      return null
    }
  }

  var flow = new Flow({
    target: form.getAttribute('data-url'),
    fileParameterName: 'file[path]',
    chunkSize: Number(form.getAttribute('data-piece-size')),
    // Every piece at most chunkSize (else the last one may grow to almost twice as much).
    forceChunkSize: true,
    // The server takes the pieces in order only.
    simultaneousUploads: 1,
    singleFile: true,
    allowDuplicateUploads: true,
    testChunks: false,
    query: function (file, chunk) {
      return { chunk: chunk.offset, chunks: file.chunks.length, name: file.name, error: 'true' }
    },
    // A refusal is final: report it rather than send the piece again.
    permanentErrors: [400, 401, 403, 404, 406, 412, 413, 415, 500, 501],
    // A network failure or a 5xx of a proxy: the same piece again, twice at most.
    maxChunkRetries: 2,
    chunkRetryInterval: 1000,
    progressCallbacksInterval: 100
  })
  if (!flow.support) return

  drop.className = 'ready'
  input.required = false

  flow.on('fileProgress', function (file) {
    var percent = Math.floor(file.progress() * 100)
    bar.value = percent
    show('uploading', ['Uploading ' + file.name + ': ' + percent + ' %'])
  })
  flow.on('fileSuccess', function (file, message) {
    button.disabled = false
    var answer = parse(message)
    if (!answer || !answer.result) {
      show('error', ['Upload failed: the server answered something unexpected.'])
      return
    }
    bar.value = 100
    var link = document.createElement('a')
    link.href = answer.result.href
    link.textContent = answer.result.name
    show('done', ['Uploaded ', link, ' (' + answer.result.size + ' bytes).'])
  })
  flow.on('fileError', function (file, message, chunk) {
    button.disabled = false
    var answer = parse(message)
    var status = chunk && chunk.xhr ? chunk.xhr.status : 0
    var text = answer && answer.error && answer.error.message
    if (!text) text = status ? 'the server answered ' + status + '.' : 'the server could not be reached.'
    show('error', ['Upload failed: ' + text])
  })

  input.addEventListener('change', function () {
    dropped = null
    drop.textContent = 'or drop a file here'
  })
  drop.addEventListener('dragover', function (event) {
    event.preventDefault()
    drop.className = 'ready over'
  })
  drop.addEventListener('dragleave', function () { drop.className = 'ready' })
  drop.addEventListener('drop', function (event) {
    event.preventDefault()
    drop.className = 'ready'
    var files = event.dataTransfer && event.dataTransfer.files
    if (!files || !files.length) return
    dropped = files[files.length - 1]
    input.value = ''
    drop.textContent = 'Chosen: ' + dropped.name
  })

  form.addEventListener('submit', function (event) {
    event.preventDefault()
    if (button.disabled) return
    var file = dropped || (input.files && input.files[0])
    if (!file) {
      show('error', ['Choose a file first.'])
      return
    }
    button.disabled = true
    bar.hidden = false
    bar.value = 0
    show('uploading', ['Uploading ' + file.name + '...'])
    flow.cancel()
    flow.addFile(file)
    flow.upload()
  })
})()
`

/** Changes whenever the script does: its URL carries it, so browsers may cache the script for good. */
export const PAGE_SCRIPT_VERSION = createHash('sha256').update(PAGE_SCRIPT).digest('hex').slice(0, 16)
