import type { Emit } from '../../src/kernel/index.js'

/** What the metadata plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface MetadataDeps {
  /** Announces `metadata.deleted`. */
  readonly emit: Emit
}
