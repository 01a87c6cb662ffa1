import {
  type Handler,
  HttpError,
  forbidden,
  type HttpContext,
  type Reply,
  type Router,
  errorPage,
  notFound,
  reply,
} from '../../src/kernel/index.js'
import { RESOURCE_TOKEN_PURPOSE, type ResourceView, resourceQueries } from '../resources/index.js'
import { type WidgetView, widgetQueries } from '../widgets/index.js'
import { embedScript } from './embed.script.js'
import { playableResource } from './player-access.js'
import type { PlayerDeps } from './player.deps.js'
import { playerCsp, playerPage } from './player.page.js'
import { type PlayerChoice, playerSettings } from './player.settings.js'
import { VIEW_TOKEN_PURPOSE, recordView, requireViewGrant, viewToken } from './player-view.service.js'

const PAGE_PERMISSION =
  'public: anyone for a visible resource (visible streams); a hidden one only with a resource token for it (`?token=`); a draft one never'
const VIEW_PERMISSION = 'public: the view token of a player page (`?token=`), which counts one playback session'
const ASSET_PERMISSION = 'public: a static script of the player page (no data)'
const SCRIPT_TYPE = 'text/javascript; charset=utf-8'
/** Pages carry media tokens in their links: nothing may leave with a Referer (the kernel's default sends the origin). */
const NO_REFERRER = { 'Referrer-Policy': 'no-referrer' }

/**
 * The errors of a player page as pages that may be framed, so an embed shows "Not found"
 * rather than a frame the browser refused (the kernel's error pages may only be framed by
 * this site). The answer is a page whatever Accept says, as the success is.
 */
const framedErrors =
  (handler: Handler): Handler =>
  async (c) => {
    try {
      return await handler(c)
    } catch (error) {
      if (!(error instanceof HttpError)) throw error
      return reply.page(error.status, errorPage(error.status, error.message), {
        embeddable: true,
        headers: { ...error.headers, ...NO_REFERRER },
      })
    }
  }

/** One `?name=` of the query, if sent and not empty. */
function queryValue(c: HttpContext, name: string): string | undefined {
  const value = new URLSearchParams(c.search).get(name)
  return value ? value : undefined
}

/** The widget named by the path, or 404. */
async function widgetOf(c: HttpContext, slug: string): Promise<WidgetView> {
  const widget = await widgetQueries.bySlug(c.reader, slug)
  if (!widget) throw notFound(`No widget "${slug}".`)
  return widget
}

export function playerRoutes(r: Router, deps: PlayerDeps): void {
  const { assets } = deps

  /** The page of a resource the request may play, in the look and behavior chosen. */
  async function page(c: HttpContext, resource: ResourceView, choice: PlayerChoice, widget: WidgetView | null) {
    const described = await deps.describer.describe(c, [resource], {
      withToken: true,
      tokenTtl: deps.mediaTokenTtl,
    })
    const details = described.get(resource.id)!
    // The media's online channels decide whether it has players at all (web, widget).
    if (details.players.length === 0) {
      throw notFound(`Resource "${resource.slug}" has no player: no online channel of its media offers one.`)
    }
    const settings = await playerSettings(c.reader, resource.platformId, choice)
    const view = viewToken(deps.tokens, resource, deps.viewTokenTtl)
    const markup = playerPage({
      resource,
      details,
      settings,
      widget: widget && { slug: widget.slug, width: widget.width, height: widget.height },
      scripts: {
        hls: c.links.url('player', 'assets', assets.hlsName),
        player: c.links.url('player', 'assets', assets.playerName),
      },
      viewUrl: `${c.links.url('player', resource.slug, 'views')}?token=${encodeURIComponent(view)}`,
    })
    return reply.page(200, markup, {
      embeddable: true,
      csp: playerCsp(c.links.base, settings.theme.logoUrl),
      headers: NO_REFERRER,
    })
  }

  r.get('/player/assets/:asset', (c) => assets.serve(c, c.param('asset')), {
    public: true,
    permission: ASSET_PERMISSION,
    produces: 'text/javascript',
  })

  r.get(
    '/player/:resource',
    framedErrors(async (c) => {
      const resource = await playableResource(c, c.param('resource'))
      const theme = queryValue(c, 'theme')
      const behavior = queryValue(c, 'behavior')
      return page(
        c,
        resource,
        { theme: theme ? { slug: theme } : null, behavior: behavior ? { slug: behavior } : null },
        null,
      )
    }),
    {
      public: true,
      permission: PAGE_PERMISSION,
      produces: 'text/html',
      tokenPurpose: RESOURCE_TOKEN_PURPOSE,
      embeddable: true,
    },
  )

  r.post(
    '/player/:resource/views',
    async (c) => {
      // 403, not 401: no credentials would help, only the token the page was given.
      if (!c.token) throw forbidden('A view token is needed: the player page gives one (`?token=`).')
      const view = requireViewGrant(c, c.param('resource'))
      const resource = await resourceQueries.byId(c.reader, view.resourceId)
      if (!resource || resource.slug !== c.param('resource')) throw notFound(`No resource "${c.param('resource')}".`)
      await recordView(c.em, deps.views, view)
      return reply.noContent()
    },
    { public: true, permission: VIEW_PERMISSION, tokenPurpose: VIEW_TOKEN_PURPOSE },
  )

  // Before `/embed/:widget`, which matches `<slug>.js` too.
  r.get(
    '/embed/:widget.js',
    async (c): Promise<Reply> => {
      const slug = c.param('widget').replace(/\.js$/, '')
      const headers = { 'X-Content-Type-Options': 'nosniff', ...NO_REFERRER }
      try {
        const widget = await widgetOf(c, slug)
        await playableResource(c, widget.resourceSlug)
        const token = queryValue(c, 'token')
        const script = embedScript(assets.embed, {
          widget: widget.slug,
          page: c.links.url('embed', widget.slug) + (token ? `?token=${encodeURIComponent(token)}` : ''),
          width: widget.width,
          height: widget.height,
          title: widget.name,
        })
        // Short: a change of the widget's size or name shows within minutes; with a token, not stored at all.
        return reply.raw(200, script, SCRIPT_TYPE, {
          ...headers,
          'Cache-Control': token ? 'no-store' : 'public, max-age=300',
        })
      } catch (error) {
        if (!(error instanceof HttpError)) throw error
        // A script answer, so the host page's console says why.
        const comment = `/* mediactl: ${error.message.replace(/\*\//g, '* /')} */\n`
        return reply.raw(error.status, comment, SCRIPT_TYPE, { ...headers, 'Cache-Control': 'no-store' })
      }
    },
    { public: true, permission: PAGE_PERMISSION, produces: 'text/javascript', tokenPurpose: RESOURCE_TOKEN_PURPOSE },
  )

  r.get(
    '/embed/:widget',
    framedErrors(async (c) => {
      const widget = await widgetOf(c, c.param('widget'))
      const resource = await playableResource(c, widget.resourceSlug)
      const choice = {
        theme: widget.themeId === null ? null : { id: widget.themeId },
        behavior: widget.behaviorId === null ? null : { id: widget.behaviorId },
      }
      return page(c, resource, choice, widget)
    }),
    {
      public: true,
      permission: PAGE_PERMISSION,
      produces: 'text/html',
      tokenPurpose: RESOURCE_TOKEN_PURPOSE,
      embeddable: true,
    },
  )
}
