import type { Tokens } from '../../src/kernel/index.js'
import type { ResourceDescriber, ViewCounter } from '../resources/index.js'
import type { PlayerAssets } from './player-assets.js'

/** What the player's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface PlayerDeps {
  /** The page's scripts, served under `/player/assets/`. */
  readonly assets: PlayerAssets
  /** Seconds the page's media tokens stay valid at least (`resources.token_ttl`). */
  readonly mediaTokenTtl: number
  /** Seconds a page's view token stays valid (`player.view_token_ttl`). */
  readonly viewTokenTtl: number
  /** The resources plugin's details (media links, with tokens). */
  readonly describer: ResourceDescriber
  /** Signs the view tokens. */
  readonly tokens: Tokens
  /** The resources plugin's counter of views. */
  readonly views: ViewCounter
}
