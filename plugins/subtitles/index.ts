import { definePlugin } from '../../src/kernel/index.js'
import '../encoding/index.js'
import { FILE_INFO } from '../files/index.js'
import { FILE_SUBTITLES, fileSubtitles } from './file-subtitles.service.js'
import init from './migrations/20261122-subtitles-init.js'
import watch from './migrations/20270128-subtitles-watch.js'
import { SubtitleEntity } from './subtitle.entity.js'
import type { SubtitleView } from './subtitle.queries.js'
import { subtitleRoutes } from './subtitle.routes.js'
import type { SubtitlesDeps } from './subtitles.deps.js'

export { type Subtitle, SubtitleEntity } from './subtitle.entity.js'
export { type Cue, parseSubtitle, toWebVtt } from './subtitle.format.js'
export { FILE_SUBTITLES, type FileSubtitles } from './file-subtitles.service.js'
export { type SubtitleView, subtitleQueries } from './subtitle.queries.js'

/**
 * Subtitles of files: `POST /file/<slug>/subtitles` (SRT or WebVTT, checked by parsing; SRT
 * also kept as WebVTT for players), `GET` (the WebVTT, delivered like the other media of the
 * file: Digest or a media token, byte ranges) and `DELETE /file/<slug>/subtitles/<id>`,
 * listed on file info. Their bytes live under the file's storage prefix, so deleting the file removes them.
 */
export default definePlugin({
  name: 'subtitles',
  dependsOn: ['files', 'encoding'],
  entities: [SubtitleEntity],
  migrations: [init, watch],
  register(ctx) {
    const ofFiles = fileSubtitles(ctx.reader, ctx.cache<SubtitleView[]>({ tables: ['subtitles'] }))
    ctx.expose(FILE_SUBTITLES, ofFiles)
    const deps: SubtitlesDeps = { storage: ctx.port('storage'), info: ctx.use(FILE_INFO) }
    ctx.routes((r) => subtitleRoutes(r, deps))
    // The foreign key cascades too; deleting explicitly keeps the outcome independent of it.
    ctx.on('file.deleted', async ({ em, files }) => {
      await em.nativeDelete(SubtitleEntity, { file: { $in: files.map((file) => file.id) } })
    })
    ctx.on('file.describe', async ({ files, media }) => {
      if (files.length === 0) return
      const subtitles = await ofFiles.ofFiles(files.map((file) => file.id))
      for (const file of files) {
        for (const subtitle of subtitles.get(file.id) ?? []) {
          media.get(file.id)?.subtitles.push({
            language: subtitle.language,
            href: ctx.links.url('file', file.slug, 'subtitles', subtitle.publicId),
          })
        }
      }
    })
  },
})
