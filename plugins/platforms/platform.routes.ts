import { type Emit, forbidden, type HttpContext, isInstanceAdmin, reply, type Router } from '../../src/kernel/index.js'
import { type Platform, PlatformEntity } from './platform.entity.js'
import { platformFromPath } from './platform.lookup.js'
import { type PlatformView, platformQueries } from './platform.queries.js'
import {
  createPlatform,
  deletePlatform,
  platformStats,
  readPlatformFields,
  updatePlatform,
} from './platform.service.js'
import { platformInfoXml, platformListXml } from './platform.xml.js'
import type { PlatformsDeps } from './platforms.deps.js'

async function info(c: HttpContext, emit: Emit, platform: PlatformView, status: number) {
  const stats = await platformStats(emit, c.reader, platform)
  return reply.xml(status, platformInfoXml(c.links, platform, stats))
}

/** The platform entity in the path, for changes, once `flag` is allowed on it. */
async function platformEntity(c: HttpContext, flag: string): Promise<Platform> {
  const { id } = await platformFromPath(c, flag)
  return c.em.findOneOrFail(PlatformEntity, { id })
}

export function platformRoutes(r: Router, deps: PlatformsDeps): void {
  const { emit } = deps
  r.get(
    '/platforms',
    async (c) => {
      c.authz.requireInstanceAdmin(c.principal)
      const reader = c.reader
      const items = await c.list(await platformQueries.count(reader), (page) =>
        platformQueries.page(reader, page.offset, page.limit),
      )
      return reply.xml(200, platformListXml(c.links, items))
    },
    { permission: 'installation administrator' },
  )

  r.post(
    '/platforms',
    async (c) => {
      c.authz.requireInstanceAdmin(c.principal)
      const input = readPlatformFields(c.fields(await c.form(), 'create'))
      const platform = await createPlatform(emit, c.em, input as Required<typeof input>)
      return info(c, emit, platform, 201)
    },
    { permission: 'installation administrator' },
  )

  r.get('/platform/:platform', async (c) => info(c, emit, await platformFromPath(c, 'platform.view'), 200), {
    permission: 'platform.view on the platform',
  })

  r.put(
    '/platform/:platform',
    async (c) => {
      const platform = await platformEntity(c, 'platform.edit')
      const changes = readPlatformFields(c.fields(await c.form(), 'update'))
      // Quotas bound what a tenant may consume: only installation administrators change them.
      if ((changes.maxUsers !== undefined || changes.maxSpace !== undefined) && !isInstanceAdmin(c.principal)) {
        throw forbidden('Only installation administrators change max_users and max_space.')
      }
      await updatePlatform(c.em, platform, changes)
      return info(c, emit, platform, 200)
    },
    { permission: 'platform.edit on the platform; changing max_users or max_space: installation administrator' },
  )

  r.delete(
    '/platform/:platform',
    async (c) => {
      const platform = await platformEntity(c, 'platform.view')
      c.authz.requireInstanceAdmin(c.principal)
      await deletePlatform(emit, c.em, platform)
      return reply.noContent()
    },
    { permission: 'installation administrator (the platform holding every one of them cannot be deleted)' },
  )
}
