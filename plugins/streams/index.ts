import { type ObjectRef, definePlugin } from '../../src/kernel/index.js'
import { MEDIA_KIND } from '../media/index.js'
import init from './migrations/20261208-streams-init.js'
import watch from './migrations/20270127-streams-watch.js'
import { StreamEntity } from './stream.entity.js'
import './stream.events.js'
import { STREAM_KIND } from './stream.lookup.js'
import { type StreamView, streamQueries } from './stream.queries.js'
import { STREAM_PATHS, streamPaths } from './stream-paths.service.js'
import { streamRoutes } from './stream.routes.js'
import type { StreamsDeps } from './streams.deps.js'
import { deleteStreamsIn } from './stream.service.js'

export { type Stream, StreamEntity, VISIBILITIES, type Visibility } from './stream.entity.js'
export { STREAM_KIND, requireOnStream, seesStream, streamRef } from './stream.lookup.js'
export { STREAM_PATHS, type StreamPathOptions, type StreamPaths } from './stream-paths.service.js'
export { type StreamFilter, type StreamView, streamQueries } from './stream.queries.js'

/**
 * Streams, the channels of publications of a media, nested through `parent_stream`:
 * `GET/POST /media/<slug>/streams`, `GET/PUT/DELETE /stream/<slug>`,
 * `GET /stream/<slug>/accesses`. Hidden and draft streams, and everything below them, are
 * seen only with `stream.view_protected`. Deleting streams announces `stream.deleting`.
 */
export default definePlugin({
  name: 'streams',
  dependsOn: ['identity', 'media'],
  entities: [StreamEntity],
  migrations: [init, watch],
  register(ctx) {
    // Every read of a stream or of what it holds asks both, walking the chain of parent streams;
    // streams change rarely: kept per process until one changes (docs/operations.md, Caches).
    const parents = ctx.cache<ObjectRef | null>({ tables: ['streams'] })
    const hidden = ctx.cache<boolean>({ tables: ['streams'] })
    ctx.authz.registerKind({
      kind: STREAM_KIND,
      parent: (reader, id) =>
        parents.get(String(id), async () => {
          const stream = await streamQueries.byId(reader, id)
          if (!stream) return null
          return stream.parentId === null
            ? { kind: MEDIA_KIND, id: stream.mediaId }
            : { kind: STREAM_KIND, id: stream.parentId }
        }),
      idOf: async (reader, slug) => (await streamQueries.bySlug(reader, slug))?.id ?? null,
      slugOf: async (reader, id) => (await streamQueries.byId(reader, id))?.slug ?? null,
      hidden: (reader, id) => hidden.get(String(id), () => streamQueries.isHidden(reader, id)),
    })
    const paths = streamPaths(ctx.cache<StreamView | null>({ tables: ['streams', 'medias'] }))
    ctx.expose(STREAM_PATHS, paths)
    const deps: StreamsDeps = { emit: ctx.emit, paths }
    ctx.routes((r) => streamRoutes(r, deps))
    ctx.on('media.deleting', async ({ em, ids }) => {
      const streams = await em.find(StreamEntity, { media: { $in: ids }, parent: null }, { fields: ['id'] })
      await deleteStreamsIn(
        ctx.emit,
        em,
        streams.map((stream) => stream.id),
      )
    })
  },
})
