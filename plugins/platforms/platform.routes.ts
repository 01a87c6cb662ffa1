import {
  type FieldReader,
  type HttpContext,
  type Router,
  forbidden,
  isInstanceAdmin,
  notFound,
  reply,
  requireFlag,
} from '../../src/kernel/index.js'
import { type Platform, PlatformEntity } from './platform.entity.js'
import { type PlatformView, platformQueries } from './platform.queries.js'
import { createPlatform, deletePlatform, platformStats } from './platform.service.js'
import { platformInfoXml, platformListXml } from './platform.xml.js'

/** The platform in the path, if the user may see it (their own, or any for administrators). */
async function visiblePlatform(c: HttpContext): Promise<PlatformView> {
  const platform = await platformQueries.bySlug(c.services.reader, c.param('platform'))
  if (!platform || (!isInstanceAdmin(c.principal) && platform.id !== c.principal.platformId)) {
    throw notFound(`No platform "${c.param('platform')}".`)
  }
  return platform
}

/** The platform entity in the path, for changes, if the user may see it. */
async function visiblePlatformEntity(c: HttpContext): Promise<Platform> {
  const { id } = await visiblePlatform(c)
  return c.em.findOneOrFail(PlatformEntity, { id })
}

function readFields(v: FieldReader): { name?: string; maxUsers?: number; maxSpace?: number } {
  const name = v.string('name', { required: true, max: 255 }) ?? undefined
  // The column is a 32-bit integer: larger counts would fail in the database (500 on PostgreSQL).
  const maxUsers = v.integer('max_users', { required: true, max: 2_147_483_647 }) ?? undefined
  const maxSpace = v.integer('max_space', { required: true }) ?? undefined
  v.done()
  return { name, maxUsers, maxSpace }
}

async function info(c: HttpContext, platform: PlatformView, status: number) {
  const stats = await platformStats(c.services, platform)
  return reply.xml(status, platformInfoXml(c.links, platform, stats))
}

export function platformRoutes(r: Router): void {
  r.get('/platforms', async (c) => {
    requireFlag(c.principal, 'instance.view')
    const reader = c.services.reader
    const items = await c.list(await platformQueries.count(reader), (page) =>
      platformQueries.page(reader, page.offset, page.limit),
    )
    return reply.xml(200, platformListXml(c.links, items))
  })

  r.post('/platforms', async (c) => {
    requireFlag(c.principal, 'instance.view')
    const input = readFields(c.fields(await c.form(), 'create'))
    const platform = await createPlatform(c.services, c.em, input as Required<typeof input>)
    return info(c, platform, 201)
  })

  r.get('/platform/:platform', async (c) => {
    const platform = await visiblePlatform(c)
    requireFlag(c.principal, 'platform.view')
    return info(c, platform, 200)
  })

  r.put('/platform/:platform', async (c) => {
    const platform = await visiblePlatformEntity(c)
    requireFlag(c.principal, 'platform.edit')
    const changes = readFields(c.fields(await c.form(), 'update'))
    // Quotas bound what a tenant may consume: only installation administrators change them.
    if ((changes.maxUsers !== undefined || changes.maxSpace !== undefined) && !isInstanceAdmin(c.principal)) {
      throw forbidden('Only installation administrators change max_users and max_space.')
    }
    if (changes.name !== undefined) platform.name = changes.name
    if (changes.maxUsers !== undefined) platform.maxUsers = changes.maxUsers
    if (changes.maxSpace !== undefined) platform.maxSpace = changes.maxSpace
    await c.em.flush()
    return info(c, platform, 200)
  })

  r.delete('/platform/:platform', async (c) => {
    const platform = await visiblePlatformEntity(c)
    requireFlag(c.principal, 'instance.view')
    await deletePlatform(c.services, c.em, platform)
    return reply.noContent()
  })
}
