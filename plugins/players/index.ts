import { definePlugin } from '../../src/kernel/index.js'
import { PlatformEntity } from '../platforms/index.js'
import init from './migrations/20261208-players-init.js'
import { PlayerBehaviorEntity } from './player-behavior.entity.js'
import { BEHAVIORS } from './player-behavior.family.js'
import { PlayerThemeEntity } from './player-theme.entity.js'
import { THEMES } from './player-theme.family.js'
import { playerRoutes } from './player.routes.js'
import { seedPlayers } from './player.seeds.js'
import { deletePlayersOfPlatform } from './player.service.js'
import type { PlayersDeps } from './players.deps.js'
import './players.events.js'

export { type BehaviorSettings, type PlayerBehavior, PlayerBehaviorEntity } from './player-behavior.entity.js'
export {
  LOGO_POSITIONS,
  type LogoPosition,
  type PlayerTheme,
  PlayerThemeEntity,
  type ThemeSettings,
} from './player-theme.entity.js'
export { type PlayerBehaviorView, playerBehaviorQueries } from './player-behavior.family.js'
export { type PlayerThemeView, playerThemeQueries } from './player-theme.family.js'
export {
  DEFAULT_BEHAVIOR,
  DEFAULT_BEHAVIORS,
  DEFAULT_THEME,
  DEFAULT_THEMES,
  type DefaultPlayerSetting,
} from './player.defaults.js'
export { playerBehaviorLinkXml, playerThemeLinkXml, playerUrl } from './player.xml.js'
export { seedPlayers } from './player.seeds.js'
export type { PlayerKind, PlayerQueries, PlayerView } from './players.types.js'

/**
 * Player themes and behaviors, per platform: `GET/POST /platform/<slug>/player_theme`,
 * `GET/PUT/DELETE /platform/<slug>/player_theme/<theme>`, the same for `player_behavior`.
 * Every platform gets the default ones (Light, Dark; Default, Autoplay muted, Loop). Widgets
 * refer to them; deleting one announces `player_theme.deleting` / `player_behavior.deleting`.
 */
export default definePlugin({
  name: 'players',
  dependsOn: ['platforms', 'identity'],
  entities: [PlayerThemeEntity, PlayerBehaviorEntity],
  migrations: [init],
  register(ctx) {
    const deps: PlayersDeps = { emit: ctx.emit }
    ctx.routes((r) => playerRoutes(r, deps))
    ctx.on('platform.created', ({ em, platform }) => seedPlayers(em, platform))
    // The foreign keys cascade too; deleting explicitly announces it and keeps the outcome independent of them.
    ctx.on('platform.deleting', async ({ em, platform }) => {
      await deletePlayersOfPlatform(ctx.emit, em, THEMES, platform.id)
      await deletePlayersOfPlatform(ctx.emit, em, BEHAVIORS, platform.id)
    })
    ctx.seed(async (em) => {
      for (const platform of await em.find(PlatformEntity, {}, { orderBy: { id: 'asc' } })) {
        await seedPlayers(em, platform)
      }
    })
  },
})
