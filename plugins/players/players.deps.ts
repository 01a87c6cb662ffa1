import type { Emit } from '../../src/kernel/index.js'

/** What the players plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface PlayersDeps {
  /** Announces `player_theme.deleting` and `player_behavior.deleting`. */
  readonly emit: Emit
}
