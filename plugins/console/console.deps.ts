import type { CredentialsPort } from '../../src/kernel/index.js'
import type { ConsoleConfig } from './console.config.js'

/** What the console's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface ConsoleDeps {
  readonly config: ConsoleConfig
  /** The session cookie's name and flags follow the public URL's scheme (`base_url`). */
  readonly secure: boolean
  readonly cookieName: string
  /** The users' credentials (active, profile flags): a session's user as Digest would see them. */
  readonly credentials: CredentialsPort
}
