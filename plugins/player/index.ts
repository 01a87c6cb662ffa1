import { definePlugin } from '../../src/kernel/index.js'
import { RESOURCE_DETAILS, RESOURCE_VIEWS, RESOURCES_SETTINGS } from '../resources/index.js'
import init from './migrations/20261212-player-view-sessions.js'
import { PlayerAssets } from './player-assets.js'
import { playerConfigSchema } from './player.config.js'
import type { PlayerDeps } from './player.deps.js'
import { playerRoutes } from './player.routes.js'
import { PlayerViewSessionEntity } from './player-view-session.entity.js'
import { purgeViewSessions } from './player-view.service.js'

export { type PlayerViewSession, PlayerViewSessionEntity } from './player-view-session.entity.js'
export { VIEW_TOKEN_PURPOSE, purgeViewSessions, viewToken } from './player-view.service.js'

/**
 * The player (docs/pages.md, The player page): the public player page of a resource
 * (`GET /player/<resource>`, the `players` of its info) and of a widget (`GET /embed/<widget>`,
 * the target of its iframe code), with HLS through hls.js, the MP4 flavors as fallback,
 * subtitles, the theme and behavior; the JavaScript embed (`GET /embed/<widget>.js`) and its
 * postMessage API; view counting once per playback session (`POST /player/<resource>/views`).
 */
export default definePlugin({
  name: 'player',
  dependsOn: ['resources', 'widgets', 'players', 'streams'],
  config: playerConfigSchema,
  entities: [PlayerViewSessionEntity],
  migrations: [init],
  register(ctx) {
    // The page's media links are those of a resource asked with-token: the resources plugin's lifetime.
    const { token_ttl: mediaTokenTtl } = ctx.use(RESOURCES_SETTINGS)
    const deps: PlayerDeps = {
      assets: new PlayerAssets(),
      mediaTokenTtl,
      viewTokenTtl: ctx.config.view_token_ttl,
      describer: ctx.use(RESOURCE_DETAILS),
      tokens: ctx.tokens,
      views: ctx.use(RESOURCE_VIEWS),
    }
    ctx.routes((r) => playerRoutes(r, deps))
    ctx.on('maintenance.purge', async ({ now, report }) => {
      report['expired player view sessions'] = await purgeViewSessions(ctx.em(), now)
    })
  },
})
