import { type HttpContext, reply, type Router } from '../../src/kernel/index.js'
import { objectAccessesHandler, objectAccessesPermission } from '../identity/index.js'
import { PLATFORM_KIND, platformFromPath } from '../platforms/index.js'
import { type MediaInput, readMediaFields } from './media.fields.js'
import { MEDIA_KIND, mediaFromPath } from './media.lookup.js'
import { type MediaView, mediaQueries } from './media.queries.js'
import { createMedia, deleteMedia, updateMedia } from './media.service.js'
import { mediaInfoXml, mediaListXml } from './media.xml.js'
import type { MediaDeps } from './media.deps.js'

const info = async (c: HttpContext, id: number, status: number) =>
  reply.xml(status, mediaInfoXml(c.links, (await mediaQueries.byId(c.reader, id)) as MediaView))

/** Media of a platform: list, create; one media: info, partial update (201, as the spec shows), delete. */
export function mediaRoutes(r: Router, deps: MediaDeps): void {
  const { emit } = deps
  r.get(
    '/platform/:platform/medias',
    async (c) => {
      const platform = await platformFromPath(c, 'platform.view')
      const scope = await c.authz.scope(c.principal, MEDIA_KIND, { kind: PLATFORM_KIND, id: platform.id })
      const reader = c.reader
      const items = await c.list(await mediaQueries.count(reader, platform.id, scope), (page) =>
        mediaQueries.page(reader, platform.id, scope, page.offset, page.limit),
      )
      return reply.xml(200, mediaListXml(c.links, platform.slug, items))
    },
    { permission: 'platform.view on the platform; lists the media the caller may view (media.view)' },
  )

  r.post(
    '/platform/:platform/medias',
    async (c) => {
      const platform = await platformFromPath(c, 'platform.view')
      await c.authz.requireWithin(c.principal, 'media.create', { kind: PLATFORM_KIND, id: platform.id })
      const input = readMediaFields(c.fields(await c.form(), 'create'))
      const media = await createMedia(emit, c.em, platform.id, input as Parameters<typeof createMedia>[3])
      return info(c, media.id, 201)
    },
    { permission: 'platform.view, then media.create on the platform' },
  )

  r.get('/media/:media', async (c) => info(c, (await mediaFromPath(c, 'media.view')).id, 200), {
    permission: 'media.view on the media',
  })

  r.put(
    '/media/:media',
    async (c) => {
      const media = await mediaFromPath(c, 'media.edit')
      const changes: MediaInput = readMediaFields(c.fields(await c.form(), 'update'))
      await updateMedia(c.em, media.id, changes)
      return info(c, media.id, 201)
    },
    { permission: 'media.edit on the media' },
  )

  r.delete(
    '/media/:media',
    async (c) => {
      const media = await mediaFromPath(c, 'media.delete')
      await deleteMedia(emit, c.em, media.id)
      return reply.noContent()
    },
    { permission: 'media.delete on the media' },
  )

  r.get('/media/:media/accesses', objectAccessesHandler(MEDIA_KIND, 'media'), {
    permission: objectAccessesPermission(MEDIA_KIND),
  })
}
