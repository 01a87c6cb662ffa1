import { gzipSync } from 'node:zlib'
import { type HttpContext, type Reply, type Router, type SafeHtml, errorPage, reply } from '../../src/kernel/index.js'
import { type HomeStream, homePage } from './home.page.js'
import { notFoundPage } from './not-found.page.js'
import type { PortalDeps } from './portal.deps.js'
import type { PortalView } from './portal.layout.js'
import { PortalLinks } from './portal.links.js'
import { pageCount, requestedPage } from './portal.paging.js'
import { portalQueries } from './portal.queries.js'
import { PORTAL_STYLE, PORTAL_STYLE_FILE, PORTAL_STYLE_HASH } from './portal.style.js'
import { lookOf } from './portal.theme.js'
import { resourcePage } from './resource.page.js'
import type { CardItem } from './resource-card.view.js'
import { streamPage } from './stream.page.js'

const PERMISSION =
  "public: anyone, on the media's domain or under /portal/<media>; only visible streams and resources of a media whose web channel is online"
const STYLE_PERMISSION = 'public: the stylesheet of the media portal (same rule as its pages)'

/**
 * Pages hold public content only, so shared caches may keep them a minute. Their thumbnail
 * links carry resource tokens valid for `portal.token_ttl` (hours): far longer than a minute.
 */
const PAGE_CACHE = 'public, max-age=60'
const STYLE_CACHE = 'public, max-age=31536000, immutable'
const STYLE_TYPE = 'text/css; charset=utf-8'
const STYLE_GZIP = gzipSync(PORTAL_STYLE, { level: 9 })
const STYLE_ETAG = `"${PORTAL_STYLE_HASH}"`
const NO_PORTAL = 'There is no media portal at this address.'

/** The pages' own rules: no scripts at all; pictures and the player come from the API's origin. */
function pageCsp(c: HttpContext): Record<string, string> {
  const api = new URL(`${c.links.base}/`).origin
  return {
    'script-src': "'none'",
    'style-src': "'self'",
    'img-src': `'self' data: ${api}`,
    'frame-src': api,
    'media-src': "'none'",
    'connect-src': "'none'",
  }
}

const page = (c: HttpContext, status: number, markup: SafeHtml): Reply =>
  reply.page(status, markup, { csp: pageCsp(c), cache: status === 200 ? PAGE_CACHE : 'no-store' })

/** A page was asked that this open portal does not have (or does not show): its themed 404. */
class Missing extends Error {}

/** What a portal route renders once the portal is open. */
type Render = (c: HttpContext, view: PortalView) => Promise<SafeHtml>

/**
 * The media of the path with its online web channel, or a plain 404 page for every portal URL
 * (unknown media, no web channel, an offline one: the same answer). Inside an open portal, a
 * missing page answers the portal's own 404 page.
 */
function portalPage(deps: PortalDeps, render: Render): (c: HttpContext) => Promise<Reply> {
  return async (c) => {
    const reader = c.reader
    const max = deps.maxList
    const found = await portalQueries.portal(reader, c.param('media'), max)
    if (!found) return reply.page(404, errorPage(404, NO_PORTAL))
    const view: PortalView = {
      media: found.media,
      look: lookOf(found),
      links: new PortalLinks(c, found.media.slug),
      tree: await portalQueries.streams(reader, found.media.id, max),
    }
    try {
      return page(c, 200, await render(c, view))
    } catch (error) {
      if (error instanceof Missing) return page(c, 404, notFoundPage(view, error.message))
      throw error
    }
  }
}

/** The cards of some resources, their thumbnails signed for `token_ttl`. */
async function cards(c: HttpContext, deps: PortalDeps, lists: CardItem['resource'][][]): Promise<CardItem[][]> {
  const all = lists.flat()
  const details = await deps.describer.describe(c, all, { withToken: true, tokenTtl: deps.config.token_ttl })
  return lists.map((list) => list.map((resource) => ({ resource, details: details.get(resource.id) })))
}

const home =
  (deps: PortalDeps): Render =>
  async (c, view) => {
    const { config } = deps
    const number = requestedPage(c)
    const roots = view.tree.roots
    const pages = pageCount(roots.length, config.streams_per_page)
    if (number === null || number > pages) throw new Missing('There is no such page.')
    const shown = roots.slice((number - 1) * config.streams_per_page, number * config.streams_per_page)
    const streams = shown.flatMap((root) => view.tree.subtree(root))
    const latest = await Promise.all(
      streams.map((s) => portalQueries.newest(c.reader, s.id, 1, config.latest_per_stream)),
    )
    const items = await cards(
      c,
      deps,
      latest.map((l) => l.items),
    )
    const byId = new Map(streams.map((s, i) => [s.id, { latest: items[i]!, total: latest[i]!.total }]))
    const build = (id: number): HomeStream => ({
      stream: view.tree.get(id)!,
      ...byId.get(id)!,
      children: view.tree.childrenOf(id).map((child) => build(child.id)),
    })
    return homePage(
      view,
      shown.map((root) => build(root.id)),
      number,
      pages,
    )
  }

const stream =
  (deps: PortalDeps): Render =>
  async (c, view) => {
    const { config } = deps
    const shown = view.tree.bySlug(c.param('stream'))
    if (!shown) throw new Missing('There is no such stream here.')
    const number = requestedPage(c)
    if (number === null) throw new Missing('There is no such page.')
    const list = await portalQueries.newest(c.reader, shown.id, number, config.resources_per_page)
    const pages = pageCount(list.total, config.resources_per_page)
    if (number > pages) throw new Missing('There is no such page.')
    const [items] = await cards(c, deps, [list.items])
    return streamPage(view, shown, { items: items!, page: number, pages })
  }

const resource =
  (deps: PortalDeps): Render =>
  async (c, view) => {
    const found = await portalQueries.resource(c.reader, c.param('resource'))
    // Another media's, hidden, draft, or in a stream that is not visible: all the same 404.
    const shownIn =
      found && found.mediaId === view.media.id && found.visibility === 'visible' && view.tree.get(found.streamId)
    if (!found || !shownIn) throw new Missing('There is no such publication here.')
    const details = (await deps.describer.describe(c, [found], { withToken: false, tokenTtl: 0 })).get(found.id)!
    return resourcePage(view, found, shownIn, details, c.links.url('player', found.slug))
  }

/** The stylesheet: the current one for any content hash (an old page still gets styled), cached forever only under its own. */
async function stylesheet(c: HttpContext, maxList: number): Promise<Reply> {
  const found = await portalQueries.portal(c.reader, c.param('media'), maxList)
  const file = c.param('file')
  if (!found || !/^portal\.[0-9a-f]{16}\.css$/.test(file)) return reply.page(404, errorPage(404, NO_PORTAL))
  const current = file === PORTAL_STYLE_FILE
  const headers: Record<string, string> = {
    'Cache-Control': current ? STYLE_CACHE : PAGE_CACHE,
    ETag: STYLE_ETAG,
    Vary: 'Accept-Encoding',
    'X-Content-Type-Options': 'nosniff',
  }
  if (c.req.headers['if-none-match'] === STYLE_ETAG) return { status: 304, headers }
  const gzip = /\bgzip\b/.test(String(c.req.headers['accept-encoding'] ?? ''))
  if (gzip) return reply.raw(200, STYLE_GZIP, STYLE_TYPE, { ...headers, 'Content-Encoding': 'gzip' })
  return reply.raw(200, PORTAL_STYLE, STYLE_TYPE, headers)
}

/**
 * The media portal, the public site of a media's `web` channel: home, stream and resource
 * pages and their stylesheet under `/portal/<media>` (on the media's own domain, the kernel
 * mounts that prefix at `/`), and a 404 page for any other address below it.
 */
export function portalRoutes(r: Router, deps: PortalDeps): void {
  const options = { public: true, permission: PERMISSION, produces: 'text/html' }
  r.get('/portal/:media', portalPage(deps, home(deps)), options)
  r.get('/portal/:media/stream/:stream', portalPage(deps, stream(deps)), options)
  r.get('/portal/:media/resource/:resource', portalPage(deps, resource(deps)), options)
  r.get('/portal/:media/assets/:file', (c) => stylesheet(c, deps.maxList), {
    public: true,
    permission: STYLE_PERMISSION,
    produces: 'text/css',
  })
  // Last: any other address of a portal is a page of it that does not exist (not an API 401).
  r.get(
    '/portal/:media/*',
    portalPage(deps, () => Promise.reject(new Missing('There is no page at this address.'))),
    options,
  )
}
