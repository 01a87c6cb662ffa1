import type { Authz } from './authz/authz.service.js'
import type { Config } from './config/schema.js'
import type { Orm } from './db/orm.js'
import type { Reader } from './cache/reader.js'
import type { EventBus } from './events.js'
import type { LinkBuilder } from './http/links.js'
import type { Logger } from './log.js'
import type { PortRegistry } from './ports.js'

/** The kernel's shared services, reachable from every plugin context and request. */
export interface KernelServices {
  config: Config
  log: Logger
  orm: Orm
  /** Prepared read-only queries for hot paths (committed data only). */
  reader: Reader
  links: LinkBuilder
  events: EventBus
  ports: PortRegistry
  /** The authorization service (docs/authorization.md). */
  authz: Authz
  /** The server secret: signs nonces and tokens. Never logged. */
  secret: string
}
