import type { Reader } from '../../src/kernel/index.js'
import type { ResourceDescriber } from '../resources/index.js'
import type { PortalConfig } from './portal.config.js'

/** What the portal's pages and host mapping get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface PortalDeps {
  readonly config: PortalConfig
  /** The resources plugin's details (thumbnails, with tokens). */
  readonly describer: ResourceDescriber
  /** Most rows read for one list (`http.max_list`). */
  readonly maxList: number
  /** Committed data: the media a host name is the domain of. */
  readonly reader: Reader
}
