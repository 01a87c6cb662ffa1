import type { Emit } from '../../src/kernel/index.js'

/** What the media plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface MediaDeps {
  /** Announces `media.created` and `media.deleting`. */
  readonly emit: Emit
}
