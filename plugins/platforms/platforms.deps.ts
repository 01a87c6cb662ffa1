import type { Emit } from '../../src/kernel/index.js'

/** What the platforms plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface PlatformsDeps {
  /** Announces `platform.created`, `platform.describe` (info's counts) and `platform.deleting`. */
  readonly emit: Emit
}
