import type { FilesDeps } from './files.deps.js'
import { createReadStream, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import {
  type BrowserScript,
  type HttpContext,
  type Reply,
  type Router,
  browserScript,
  browserScriptReply,
  reply,
  scriptReply,
} from '../../src/kernel/index.js'
import { fileQueries } from './file.queries.js'
import { UPLOAD_PERMISSION, asUploadError, uploadErrorBody, uploadResult } from './upload-answers.js'
import { discard } from './upload.service.js'
import { type UploadOutcome, readUploadBody, storeUpload } from './upload.form.js'
import { type UploadTarget, requireSameDirectory, tokenOf } from './upload-token.js'
import {
  HTML_TYPE,
  PAGE_HEADERS,
  type PageTarget,
  errorPage,
  piecePage,
  resultPage,
  uploadPage,
} from './upload-page.js'

const ASSET_PERMISSION = 'public: a static script of the upload page (no data)'

/** The Flow.js browser build served to the page, found in node_modules (from src/ as from dist/). */
interface Library {
  path: string
  version: string
  size: number
}

let library: Library | undefined

function flowJs(): Library {
  if (!library) {
    const require = createRequire(import.meta.url)
    const path = require.resolve('@flowjs/flow.js/dist/flow.min.js')
    const { version } = JSON.parse(readFileSync(require.resolve('@flowjs/flow.js/package.json'), 'utf8')) as {
      version: string
    }
    library = { path, version, size: statSync(path).size }
  }
  return library
}

/**
 * The page's scripts, relative to `/upload/html`, their version in the query (the asset URLs
 * are fixed); none when Flow.js is missing (the plain form still works).
 */
function pageScripts(c: HttpContext, script: BrowserScript): string[] {
  try {
    return [`assets/flow.min.js?v=${flowJs().version}`, `assets/upload-page.js?v=${script.hash}`]
  } catch (error) {
    c.log.error({ err: error }, 'Flow.js is not installed: the upload page falls back to a plain form')
    return []
  }
}

/**
 * The json endpoint may be called from a form hosted on another site (the spec's external
 * upload form, with cookies enabled): it reads no ambient credentials, only the token, so
 * any origin may read its answers.
 */
function corsHeaders(c: HttpContext): Record<string, string> {
  const origin = c.req.headers.origin
  if (!origin) return { 'Cache-Control': 'no-store' }
  return {
    'Cache-Control': 'no-store',
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Credentials': 'true',
    Vary: 'Origin',
  }
}

/** The JSON error answer of the json endpoint. */
function jsonError(c: HttpContext, error: unknown): Reply {
  const e = asUploadError(c, error)
  return reply.json(e.status, uploadErrorBody(e), { ...e.headers, ...corsHeaders(c) })
}

function htmlError(c: HttpContext, error: unknown, back?: string): Reply {
  const e = asUploadError(c, error)
  return reply.raw(e.status, errorPage(e.status, e.message, e.fields, back), HTML_TYPE, {
    ...e.headers,
    ...PAGE_HEADERS,
  })
}

/**
 * Reads an upload into the token's directory: a `folder` field may only repeat it (403
 * otherwise). The token was checked before the body is read, so a refused link stores nothing.
 */
async function receive(deps: FilesDeps, c: HttpContext, target: UploadTarget): Promise<UploadOutcome> {
  const body = await readUploadBody(deps, c, target.uploader)
  try {
    requireSameDirectory(target, body.form.folder)
  } catch (error) {
    await discard(deps, c.em, body.received)
    throw error
  }
  return storeUpload(deps, c, target.uploader, body, target.directory?.id ?? null)
}

async function pageTarget(c: HttpContext, target: UploadTarget): Promise<PageTarget> {
  const directory = target.directory && (await fileQueries.directoryBySlug(c.reader, target.directory.slug))
  return {
    username: target.uploader.username,
    directory: directory ? { slug: directory.slug, name: directory.name } : null,
    expiresAt: target.expiresAt,
  }
}

/**
 * The endpoints behind upload links (docs/api/files.md, Upload links and the upload endpoints):
 * `POST /upload/json` answers JSON only; `GET /upload/html` is the upload page (Flow.js,
 * pieces of `files.upload_piece_size`) and `POST /upload/html` its plain-form fallback. The
 * token of the link is the only credential: no Digest.
 */
export function uploadEndpointRoutes(r: Router, deps: FilesDeps): void {
  // plugins/files/browser/upload-page.browser.ts as built.
  const script = browserScript('upload-page')
  r.post(
    '/upload/json',
    async (c) => {
      try {
        const target = await deps.uploadLinks.check(c)
        const outcome = await receive(deps, c, target)
        if (!outcome.done) return reply.json(200, outcome.progress, corsHeaders(c))
        return reply.json(200, uploadResult(c, outcome.file), corsHeaders(c))
      } catch (error) {
        return jsonError(c, error)
      }
    },
    { public: true, permission: UPLOAD_PERMISSION, produces: 'application/json' },
  )

  r.get(
    '/upload/html',
    async (c) => {
      try {
        const target = await deps.uploadLinks.check(c)
        const html = uploadPage(
          await pageTarget(c, target),
          tokenOf(c)!,
          deps.config.upload_piece_size,
          pageScripts(c, script),
        )
        return reply.raw(200, html, HTML_TYPE, PAGE_HEADERS)
      } catch (error) {
        return htmlError(c, error)
      }
    },
    { public: true, permission: UPLOAD_PERMISSION, produces: 'text/html' },
  )

  r.post(
    '/upload/html',
    async (c) => {
      let back: string | undefined
      try {
        const target = await deps.uploadLinks.check(c)
        back = `html?token=${encodeURIComponent(tokenOf(c)!)}`
        const outcome = await receive(deps, c, target)
        if (!outcome.done) return reply.raw(200, piecePage(outcome.progress, back), HTML_TYPE, PAGE_HEADERS)
        const html = resultPage(await pageTarget(c, target), uploadResult(c, outcome.file).result, back)
        return reply.raw(200, html, HTML_TYPE, PAGE_HEADERS)
      } catch (error) {
        return htmlError(c, error, back)
      }
    },
    { public: true, permission: UPLOAD_PERMISSION, produces: 'text/html' },
  )

  r.get(
    '/upload/assets/flow.min.js',
    (c) => {
      const { path, version, size } = flowJs()
      return scriptReply(c, { etag: `"flowjs-${version}"`, size, body: () => createReadStream(path) })
    },
    { public: true, permission: ASSET_PERMISSION, produces: 'text/javascript' },
  )

  r.get('/upload/assets/upload-page.js', (c) => browserScriptReply(c, script), {
    public: true,
    permission: ASSET_PERMISSION,
    produces: 'text/javascript',
  })
}
