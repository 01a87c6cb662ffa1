import { definePlugin } from '../../src/kernel/index.js'
import { CHANNEL_OFFERS } from '../channels/index.js'
import { FILE_VIEWS } from '../files/index.js'
import { SHOWN_RENDITIONS } from '../encoding/index.js'
import { METADATA_DEFINITIONS } from '../metadata/index.js'
import { STREAM_KIND, STREAM_PATHS } from '../streams/index.js'
import { FILE_SUBTITLES } from '../subtitles/index.js'
import init from './migrations/20261209-resources-init.js'
import buckets from './migrations/20270128-resources-buckets.js'
import watch from './migrations/20270129-resources-watch.js'
import { resourceMediaRoutes } from './resource-media.routes.js'
import { RESOURCE_DETAILS, ResourceDescriber } from './resource.details.js'
import { ResourceBucketEntity } from './resource-bucket.entity.js'
import { ResourceEntity } from './resource.entity.js'
import './resource.events.js'
import { RESOURCE_KIND } from './resource.lookup.js'
import { resourceQueries } from './resource.queries.js'
import { resourceRoutes } from './resource.routes.js'
import { deleteResourcesIn, dropResourceMetadata } from './resource.service.js'
import { RESOURCES_SETTINGS, resourcesConfigSchema } from './resources.config.js'
import type { ResourcesDeps } from './resources.deps.js'
import { RESOURCE_VIEWS, ViewCounter } from './view-counter.js'

export { type Resource, ResourceEntity } from './resource.entity.js'
export type { ResourceAnnounced, ResourceExtras } from './resource.events.js'
export {
  RESOURCE_DETAILS,
  type DescribeOptions,
  type ResourceDescriber,
  type ResourceDetails,
  effectiveMetadata,
} from './resource.details.js'
export { RESOURCE_KIND, isPublic, resourceFromPath, resourceRef } from './resource.lookup.js'
export { type PublicEntry, type ResourceFilter, type ResourceView, resourceQueries } from './resource.queries.js'
export { RESOURCE_TOKEN_PURPOSE, requireResourceGrant, resourceToken } from './resource-token.js'
export { RESOURCES_SETTINGS, type ResourcesConfig } from './resources.config.js'
export { RESOURCE_VIEWS, type ViewCounter } from './view-counter.js'

/**
 * Resources, files published into streams: `GET/POST /stream/<slug>/resources`,
 * `GET/PUT/DELETE /resource/<slug>` with flavors (chosen by the media's online channels),
 * players, widgets, metadata (the file's inherited) and subtitles, and the delivery of their
 * media under `/resource/<slug>/...` (Digest, or a resource token with `with-token`).
 * Deleting a file, a stream or a media deletes its resources.
 */
export default definePlugin({
  name: 'resources',
  dependsOn: ['identity', 'streams', 'channels', 'files', 'encoding', 'subtitles', 'metadata'],
  config: resourcesConfigSchema,
  entities: [ResourceEntity, ResourceBucketEntity],
  migrations: [init, buckets, watch],
  register(ctx) {
    ctx.expose(RESOURCES_SETTINGS, ctx.config)
    ctx.authz.registerKind({
      kind: RESOURCE_KIND,
      parent: async (reader, id) => {
        const streamId = await resourceQueries.streamOf(reader, id)
        return streamId === null ? null : { kind: STREAM_KIND, id: streamId }
      },
      idOf: async (reader, slug) => (await resourceQueries.bySlug(reader, slug))?.id ?? null,
      slugOf: async (reader, id) => (await resourceQueries.byId(reader, id))?.slug ?? null,
      hidden: async (reader, id) => {
        const resource = await resourceQueries.byId(reader, id)
        return (
          !!resource &&
          (resource.visibility !== 'visible' ||
            (await ctx.authz.isHidden({ kind: STREAM_KIND, id: resource.streamId })))
        )
      },
    })
    const offers = ctx.use(CHANNEL_OFFERS)
    const renditions = ctx.use(SHOWN_RENDITIONS)
    const details = new ResourceDescriber({
      files: ctx.use(FILE_VIEWS),
      offers,
      definitions: ctx.use(METADATA_DEFINITIONS),
      renditions,
      subtitles: ctx.use(FILE_SUBTITLES),
      emit: ctx.emit,
      tokens: ctx.tokens,
    })
    ctx.expose(RESOURCE_DETAILS, details)
    // Plays are counted here and written each views_flush_ms; a graceful stop writes the last ones.
    const views = new ViewCounter({ em: () => ctx.em(), log: ctx.log, flushMs: ctx.config.views_flush_ms })
    ctx.expose(RESOURCE_VIEWS, views)
    ctx.onStop(() => views.stop())
    const deps: ResourcesDeps = {
      config: ctx.config,
      emit: ctx.emit,
      details,
      streams: ctx.use(STREAM_PATHS),
      storage: ctx.port('storage'),
      offers,
      renditions,
    }
    ctx.routes((r) => {
      resourceRoutes(r, deps)
      resourceMediaRoutes(r, deps)
    })
    const deleteWhere = async (em: Parameters<typeof deleteResourcesIn>[1], where: object) => {
      const rows = await em.find(ResourceEntity, where, { fields: ['id'] })
      await deleteResourcesIn(
        ctx.emit,
        em,
        rows.map((row) => row.id),
      )
    }
    // Deleting a file deletes the resources published from it (spec: States and transitions).
    ctx.on('file.deleted', ({ em, files }) => deleteWhere(em, { file: { $in: files.map((file) => file.id) } }))
    ctx.on('stream.deleting', ({ em, ids }) => deleteWhere(em, { stream: { $in: ids } }))
    ctx.on('metadata.deleted', ({ em, definition }) => dropResourceMetadata(em, definition))
  },
})
