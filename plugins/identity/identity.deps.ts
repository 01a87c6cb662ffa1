import type { Emit } from '../../src/kernel/index.js'

/** What the identity plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface IdentityDeps {
  /** Announces `user.created` and `user.deleting`. */
  readonly emit: Emit
  /** The Digest realm new users' HA1 is made with (`auth.realm`). */
  readonly realm: string
  /** The installation's data dir (`data_dir`), which holds its RSA key pair for password checks. */
  readonly dataDir: string
}
