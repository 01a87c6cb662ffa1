import { definePlugin } from '../../src/kernel/index.js'
import { RESOURCE_DETAILS } from '../resources/index.js'
import { portalConfigSchema } from './portal.config.js'
import type { PortalDeps } from './portal.deps.js'
import { portalHosts } from './portal.hosts.js'
import { portalRoutes } from './portal.routes.js'

export { portalPrefix } from './portal.hosts.js'
export { PORTAL_STYLE_FILE } from './portal.style.js'
export { SKINS, THEMES, lookOf } from './portal.theme.js'

/**
 * The media portal, the public site of a media's `web` channel: `GET /portal/<media>` (home),
 * `/portal/<media>/stream/<slug>`, `/portal/<media>/resource/<slug>` (with the player), served
 * at `/` of the media's own domain too (host-based routing). Only visible content; the web
 * channel's theme and skin choose the look; no web channel online: every portal address is 404.
 */
export default definePlugin({
  name: 'portal',
  dependsOn: ['media', 'streams', 'resources', 'channels', 'players', 'player'],
  config: portalConfigSchema,
  register(ctx) {
    const deps: PortalDeps = {
      config: ctx.config,
      describer: ctx.use(RESOURCE_DETAILS),
      maxList: ctx.kernelConfig.http.max_list,
      reader: ctx.reader,
    }
    ctx.hosts(portalHosts(deps))
    ctx.routes((r) => portalRoutes(r, deps))
  },
})
