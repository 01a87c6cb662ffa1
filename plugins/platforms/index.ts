import { definePlugin } from '../../src/kernel/index.js'
import init from './migrations/20261121-platforms-init.js'
import timestamps from './migrations/20261227-platforms-timestamps.js'
import watch from './migrations/20270105-platforms-watch.js'
import { PlatformEntity } from './platform.entity.js'
import type { PlatformsDeps } from './platforms.deps.js'
import { PLATFORM_KIND } from './platform.lookup.js'
import { platformQueries } from './platform.queries.js'
import { platformRoutes } from './platform.routes.js'
import './platform.events.js'
import { platformCommands } from './platform.commands.js'

export { type Platform, PlatformEntity } from './platform.entity.js'
export type { PlatformStats } from './platform.events.js'
export { type PlatformView, platformQueries } from './platform.queries.js'
export { PLATFORM_KIND, platformFromPath } from './platform.lookup.js'
export { type PlatformSummary, platformCommands } from './platform.commands.js'
export { createPlatform, deletePlatform, lockPlatform, namedPlatform, type PlatformInput } from './platform.service.js'

/** Platforms: the tenants. `GET/POST /platforms`, `GET/PUT/DELETE /platform/<slug>`. */
export default definePlugin({
  name: 'platforms',
  entities: [PlatformEntity],
  migrations: [init, timestamps, watch],
  commands: platformCommands,
  register(ctx) {
    ctx.authz.registerKind({
      kind: PLATFORM_KIND,
      parent: () => Promise.resolve(null),
      idOf: async (reader, slug) => (await platformQueries.bySlug(reader, slug))?.id ?? null,
      slugOf: async (reader, id) => (await platformQueries.byId(reader, id))?.slug ?? null,
    })
    const deps: PlatformsDeps = { emit: ctx.emit }
    ctx.routes((r) => platformRoutes(r, deps))
  },
})
