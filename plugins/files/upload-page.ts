/**
 * The html upload page behind an upload link, kept as TypeScript strings: the build (tsc)
 * copies no other file into dist/, and the package ships dist/ only. The page is a plain
 * multipart form that works without JavaScript; its script (browser/upload-page.browser.ts,
 * bundled by the build) turns it into a chunked upload with Flow.js (MIT; pieces of
 * `files.upload_piece_size` posted to the json endpoint).
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
