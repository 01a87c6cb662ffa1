import { type XmlNode, definePlugin, isInstanceAdmin, xml } from '../../src/kernel/index.js'
import '../identity/index.js'
import '../root/index.js'
import { PLATFORM_KIND } from '../platforms/index.js'
import type { MediaDeps } from './media.deps.js'
import { MediaEntity } from './media.entity.js'
import './media.events.js'
import { MEDIA_KIND } from './media.lookup.js'
import { mediaQueries } from './media.queries.js'
import { mediaRoutes } from './media.routes.js'
import { deleteMediaIn } from './media.service.js'
import init from './migrations/20261207-media-init.js'
import watch from './migrations/20270129-media-watch.js'

export { type Media, MediaEntity } from './media.entity.js'
export { MEDIA_KIND, mediaFromPath, mediaRef } from './media.lookup.js'
export { type MediaView, mediaQueries } from './media.queries.js'
export { isHostName } from './media.fields.js'

/**
 * Media, the public sites of a platform: `GET/POST /platform/<slug>/medias`,
 * `GET/PUT/DELETE /media/<slug>`, `GET /media/<slug>/accesses`; one `media` link per media
 * the user may view on the root. Deleting a media announces `media.deleting` so the
 * plugins holding its streams and channels remove them.
 */
export default definePlugin({
  name: 'media',
  dependsOn: ['root', 'platforms', 'identity'],
  entities: [MediaEntity],
  migrations: [init, watch],
  register(ctx) {
    const reader = ctx.reader
    ctx.authz.registerKind({
      kind: MEDIA_KIND,
      parent: async (r, id) => {
        const media = await mediaQueries.byId(r, id)
        return media ? { kind: PLATFORM_KIND, id: media.platformId } : null
      },
      idOf: async (r, slug) => (await mediaQueries.bySlug(r, slug))?.id ?? null,
      slugOf: async (r, id) => (await mediaQueries.byId(r, id))?.slug ?? null,
    })
    const deps: MediaDeps = { emit: ctx.emit }
    ctx.routes((r) => mediaRoutes(r, deps))
    ctx.on('root.describe', async ({ user, links, services }) => {
      const limit = ctx.kernelConfig.http.max_list
      const slugs = isInstanceAdmin(user)
        ? await mediaQueries.slugs(reader, null, 'all', limit)
        : await mediaQueries.slugs(
            reader,
            user.platformId,
            await ctx.authz.scope(user, MEDIA_KIND, { kind: PLATFORM_KIND, id: user.platformId }),
            limit,
          )
      services.push(...slugs.map((slug): XmlNode => xml.link('media', links.url('media', slug))))
    })
    ctx.on('platform.deleting', async ({ em, platform }) => {
      const media = await em.find(MediaEntity, { platform }, { fields: ['id'] })
      await deleteMediaIn(
        ctx.emit,
        em,
        media.map((m) => m.id),
      )
    })
  },
})
