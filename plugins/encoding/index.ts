import { join } from 'node:path'
import { definePlugin } from '../../src/kernel/index.js'
import { DERIVED_FILES, FILE_INFO, setEncodingState } from '../files/index.js'
import { ENCODE_JOB, encodeJob } from './encode.job.js'
import { encodingConfigSchema } from './encoding.config.js'
import { encodingReconciler } from './encoding.reconciler.js'
import { encodingStateHook } from './encoding-state.hook.js'
import type { EncodingDeps } from './encoding.deps.js'
import { INSERT_LOGO_JOB, insertLogoJob } from './insert-logo.job.js'
import { MediaLinks } from './media-links.js'
import { mediaRoutes } from './media.routes.js'
import init from './migrations/20261206-encoding-renditions.js'
import watch from './migrations/20270128-encoding-watch.js'
import { RenditionEntity } from './rendition.entity.js'
import type { RenditionView } from './rendition.queries.js'
import { deleteRenditions } from './rendition.service.js'
import { SHOWN_RENDITIONS, shownRenditions } from './shown-renditions.service.js'
import { snapshotRoutes } from './snapshot.routes.js'
import { studioRoutes } from './studio.routes.js'
import { encodeAgainRoutes } from './encode-again.routes.js'
import { fileRenditionRoutes } from './file-renditions.routes.js'

export { ENCODE_JOB } from './encode.job.js'
export { INSERT_LOGO_JOB } from './insert-logo.job.js'
export { MEDIA_TOKEN_PURPOSE } from './media-token.js'
export { CACHE, attachment, serveStored } from './media-delivery.js'
export { MEDIA_PERMISSION, type MediaMount, mediaFile, mountMedia } from './media.routes.js'
export { type Rendition, RenditionEntity, type RenditionKind } from './rendition.entity.js'
export { type RenditionView, renditionQueries } from './rendition.queries.js'
export { SHOWN_RENDITIONS, type ShownRenditions, thumbnailOf } from './shown-renditions.service.js'

/**
 * The media pipeline: every uploaded file is queued for encoding (`encoding.encode`), which
 * probes it, renders its renditions (flavors, HLS, image, thumbnail) and snapshots through the
 * encoder port and stores them; the snapshots endpoints; logo insertion (`encoding.insertlogo`,
 * a new file encoded like any upload); media delivery with byte ranges, to
 * the owner (Digest) or to a media token.
 */
export default definePlugin({
  name: 'encoding',
  dependsOn: ['files'],
  config: encodingConfigSchema,
  entities: [RenditionEntity],
  migrations: [init, watch],
  register(ctx) {
    const shown = shownRenditions(ctx.reader, ctx.cache<RenditionView[]>({ tables: ['renditions'] }))
    ctx.expose(SHOWN_RENDITIONS, shown)
    const deps: EncodingDeps = {
      config: ctx.config,
      storage: ctx.port('storage'),
      encoder: ctx.hasPort('encoder') ? ctx.port('encoder') : undefined,
      reader: ctx.reader,
      em: () => ctx.em(),
      emit: ctx.emit,
      log: ctx.log,
      derived: ctx.use(DERIVED_FILES),
      info: ctx.use(FILE_INFO),
      shown,
      media: new MediaLinks(ctx.links, ctx.tokens, ctx.config.token_ttl),
      workRoot: join(ctx.kernelConfig.data_dir, 'work'),
      maxAttempts: ctx.kernelConfig.jobs.max_attempts,
      encodeSpeed: ctx.metrics.histogram(
        'mediactl_encode_seconds_per_output_second',
        'Wall seconds of a successful encoding run per second of media it made, by kind (video, audio).',
        ['kind'],
        // Below 1: faster than real time.
        [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
      ),
      queueEncoding: (tx, file) =>
        ctx.enqueue(ENCODE_JOB, { fileId: file.id }, { key: `encode:${file.id}`, subject: file.slug, em: tx }),
      queueLogoInsertion: (tx, payload, file) =>
        ctx.enqueue(INSERT_LOGO_JOB, payload, { key: `insertlogo:${file.id}`, subject: file.slug, em: tx }),
    }
    ctx.job(ENCODE_JOB, encodeJob(deps), encodingStateHook(deps, 'encoding', true))
    ctx.job(INSERT_LOGO_JOB, insertLogoJob(deps), encodingStateHook(deps, 'logo insertion', false))
    ctx.on('file.uploaded', async ({ em, file }) => {
      await setEncodingState(em, file.id, { status: 'waiting' })
      await deps.queueEncoding(em, file)
    })
    ctx.reconcile(encodingReconciler(deps))
    ctx.on('file.deleted', ({ em, files }) =>
      deleteRenditions(
        em,
        files.map((file) => file.id),
      ),
    )
    ctx.on('file.describe', async ({ files, media: described, withToken }) => {
      const thumbnails = await shown.thumbnails(files.map((file) => file.id))
      for (const file of files) {
        const thumbnail = thumbnails.get(file.id)
        if (thumbnail) described.get(file.id)!.thumbnail = deps.media.thumbnail(file, thumbnail, withToken)
      }
    })
    ctx.onServe(() => {
      // The encoder port is optional for the kernel; without it every encoding would fail.
      if (!deps.encoder) {
        ctx.log.warn('no encoder is enabled (encoder-ffmpeg): uploaded files will fail their encoding')
      }
    })
    ctx.routes((r) => {
      snapshotRoutes(r, deps)
      studioRoutes(r, deps)
      encodeAgainRoutes(r, deps)
      mediaRoutes(r, deps)
      fileRenditionRoutes(r, deps)
    })
  },
})
