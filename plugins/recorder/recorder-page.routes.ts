import {
  type BrowserScript,
  type HttpContext,
  type Reply,
  type Router,
  browserScript,
  browserScriptReply,
  notFound,
  reply,
} from '../../src/kernel/index.js'
import type { FilesConfig, UploadLinks } from '../files/index.js'
import { recorderPage, refusalPage } from './recorder.page.js'
import { peekRecorderCode } from './recorder-code.queries.js'
import type { RecorderDeps } from './recorder.deps.js'

/** A used or expired code: the recorder is gone for good (410), where the API says 412 (docs: recorder page). */
export const RECORDER_GONE = 410

const PAGE_PERMISSION = 'public: the recorder code in the address is the credential (peeked, not spent)'
const ASSET_PERMISSION = 'public: the static script of the recorder page (no data)'

/** The page's script (plugins/recorder/browser/recorder.browser.ts as built), served as `assets/<name>-<hash>.js`. */
export const recorderScript = (): BrowserScript => browserScript('recorder')

/**
 * The page's headers: framed by any site (the widget is an iframe in third-party pages), our
 * own scripts only, recordings played back from blob: URLs, and requests only to ourselves
 * and to the upload endpoints (`files.upload_base_url` may put them on another origin).
 */
function pageOptions(c: HttpContext, links: UploadLinks) {
  const self = new URL(`${c.links.base}/`).origin
  const uploads = new URL(`${links.base}/`).origin
  return {
    embeddable: true,
    csp: {
      'media-src': "'self' blob:",
      'connect-src': uploads === self ? "'self'" : `'self' ${uploads}`,
    },
  }
}

/**
 * `GET /recorder/<code>`: the recorder of a code that may still be used; a page saying why
 * not otherwise (404 unknown, 410 used or expired), framable like the recorder itself so the
 * third-party page shows it. The code is only read here: sending the recording spends it.
 */
async function recorder(c: HttpContext, files: FilesConfig, links: UploadLinks, script: BrowserScript): Promise<Reply> {
  const code = c.param('code')
  const options = pageOptions(c, links)
  const view = await peekRecorderCode(c.reader, code)
  if (!view) return reply.page(404, refusalPage(404, 'unknown'), options)
  if (view.usedAt) return reply.page(RECORDER_GONE, refusalPage(RECORDER_GONE, 'used'), options)
  if (view.expiresAt.getTime() <= Date.now()) {
    return reply.page(RECORDER_GONE, refusalPage(RECORDER_GONE, 'expired'), options)
  }
  const page = recorderPage({
    // Relative, so the page works behind a path prefix and whatever host name reached it.
    uploadLinks: `../extension/widget/recorder/${encodeURIComponent(code)}/upload_links`,
    script: `assets/${script.file}`,
    maxPieces: files.max_chunks,
    expiresAt: view.expiresAt,
  })
  return reply.page(200, page, options)
}

/** The script, or 304 when the browser holds this version; any other name, an older version's too, is 404. */
function asset(c: HttpContext, script: BrowserScript): Reply {
  if (c.param('file') !== script.file) throw notFound('No such recorder asset.')
  return browserScriptReply(c, script)
}

/** `GET /recorder/<code>` (the recorder page behind the widget's iframe) and its script. */
export function recorderPageRoutes(r: Router, deps: RecorderDeps): void {
  const { filesConfig: files, uploadLinks: links } = deps
  const script = recorderScript()
  r.get('/recorder/:code', (c) => recorder(c, files, links, script), {
    public: true,
    permission: PAGE_PERMISSION,
    produces: 'text/html',
    embeddable: true,
  })
  r.get('/recorder/assets/:file', (c) => asset(c, script), {
    public: true,
    permission: ASSET_PERMISSION,
    produces: 'text/javascript',
  })
}
