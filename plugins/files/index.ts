import type { CronJob } from 'cron'
import { definePlugin } from '../../src/kernel/index.js'
import '../identity/index.js'
import type { FileView } from './files.types.js'
import { DERIVED_FILES, derivedFiles } from './derived-files.service.js'
import { DirectoryEntity } from './directory.entity.js'
import type { FilesDeps } from './files.deps.js'
import { directoryRoutes } from './directory.routes.js'
import { fileQueries } from './file.queries.js'
import { FILE_VIEWS, fileViews } from './file-views.service.js'
import { FILE_INFO, fileInfoOf } from './file-info.service.js'
import { METADATA_DEFINITIONS } from '../metadata/index.js'
import { fileRoutes } from './file.routes.js'
import { fileSearchRoutes } from './file-search.routes.js'
import { deleteUserFiles, dropMetadataValues } from './file.service.js'
import { FILES_SETTINGS, filesConfigSchema } from './files.config.js'
import './files.events.js'
import init from './migrations/20261122-files-init.js'
import encodingRetry from './migrations/20261228-files-encoding-retry.js'
import watch from './migrations/20270129-files-watch.js'
import { PendingUploadEntity } from './pending-upload.entity.js'
import { StorageTrashEntity } from './storage-trash.entity.js'
import { StoredFileEntity } from './stored-file.entity.js'
import { emptyTrashOnCommit } from './trash.service.js'
import { type PurgeStep, purge, schedulePurge } from './purge.job.js'
import { tusPurgeStep } from './tus.service.js'
import { tusRoutes } from './tus.routes.js'
import { uploadEndpointRoutes } from './upload-endpoint.routes.js'
import { UPLOAD_LINKS, UploadLinks } from './upload-token.js'
import { uploadLinkRoutes } from './upload-link.routes.js'
import { UploadMetrics } from './upload.metrics.js'
import { uploadRoutes } from './upload.routes.js'

export { type StoredFile, StoredFileEntity } from './stored-file.entity.js'
export { type Directory, DirectoryEntity } from './directory.entity.js'
export { fileQueries } from './file.queries.js'
export { FILE_VIEWS, type FileViews } from './file-views.service.js'
export {
  ENCODING_STATUSES,
  encodingCode,
  type DirectoryView,
  type EncodingStatus,
  type FileMedia,
  type FileView,
} from './files.types.js'
export { ownFile, requireFileFlag } from './files.lookup.js'
export type { UploadedFile } from './files.events.js'
export {
  type EncodingChange,
  requireSpaceFor,
  setEncodingState,
  setExtraBytes,
  spaceLeftFor,
} from './encoding-state.service.js'
export { wantsToken } from './file-media.service.js'
export { fileStatusXml } from './file.xml.js'
export { FILE_INFO, type FileInfo } from './file-info.service.js'
export { nameField } from './name.fields.js'
export { DERIVED_FILES, type DerivedFile, type DerivedFiles } from './derived-files.service.js'
export { UPLOAD_LINKS, type UploadLinks } from './upload-token.js'
export { FILES_SETTINGS, type FilesConfig } from './files.config.js'

/**
 * The file store: each user's directories and files (`/files`, `/file/<slug>`), every
 * upload path (multipart, chunked, upload links with their html, json and tus endpoints),
 * space quotas, the purge job, and the upload metrics (upload.metrics.ts). New files are
 * announced with `file.uploaded`, deleted ones with `file.deleted`.
 */
export default definePlugin({
  name: 'files',
  dependsOn: ['platforms', 'identity', 'metadata'],
  config: filesConfigSchema,
  entities: [DirectoryEntity, StoredFileEntity, PendingUploadEntity, StorageTrashEntity],
  migrations: [init, encodingRetry, watch],
  register(ctx) {
    const uploadLinks = new UploadLinks(ctx.tokens, ctx.links, ctx.config, ctx.port('credentials'))
    const deps: FilesDeps = {
      config: ctx.config,
      storage: ctx.port('storage'),
      resumableUploads: ctx.hasPort('resumableUploads') ? ctx.port('resumableUploads') : undefined,
      locks: ctx.port('locks'),
      emit: ctx.emit,
      reader: ctx.reader,
      log: ctx.log,
      em: () => ctx.em(),
      uploadLinks,
      info: fileInfoOf(ctx.emit, ctx.use(METADATA_DEFINITIONS)),
      metrics: new UploadMetrics(ctx.metrics),
    }
    ctx.expose(FILE_INFO, deps.info)
    ctx.expose(FILES_SETTINGS, ctx.config)
    ctx.expose(UPLOAD_LINKS, uploadLinks)
    ctx.expose(DERIVED_FILES, derivedFiles(deps))
    // What a file's view reads: the file, its owner's name, its directory's slug.
    ctx.expose(FILE_VIEWS, fileViews(ctx.reader, ctx.cache<FileView>({ tables: ['files', 'users', 'directories'] })))
    ctx.routes((r) => {
      uploadLinkRoutes(r, deps)
      uploadEndpointRoutes(r, deps)
      tusRoutes(r, deps)
      uploadRoutes(r, deps)
      directoryRoutes(r, deps)
      fileRoutes(r, deps)
      fileSearchRoutes(r, deps)
    })
    // Platform info's used space, kept per process until a file changes.
    const platformBytes = ctx.cache<number>({ tables: ['files'] })
    ctx.on('platform.describe', async ({ reader, platform, stats }) => {
      stats.usedSpace = await platformBytes.get(String(platform.id), () =>
        fileQueries.platformBytes(reader, platform.id),
      )
    })
    emptyTrashOnCommit(deps)
    ctx.on('user.deleting', ({ em, user }) => deleteUserFiles(deps, em, [user.id]))
    ctx.on('platform.users-deleting', ({ em, userIds }) => deleteUserFiles(deps, em, userIds))
    ctx.on('metadata.deleted', ({ em, definition }) => dropMetadataValues(em, definition))
    const purgeSteps: PurgeStep[] = [tusPurgeStep(deps)]
    const runPurge = (now?: Date) => purge(deps, ctx.em(), purgeSteps, now)
    ctx.on('maintenance.purge', async ({ now, report }) => {
      const done = await runPurge(now)
      report['pending uploads'] = done.pendingUploads
      report['expired resumable uploads'] = done.other
      report['stored objects of deleted files'] = done.trash
    })
    if (ctx.config.purge_schedule) {
      let job: CronJob | undefined
      ctx.onServe(() => {
        // Every plugin's part of the purge (what `mediactl purge` runs), on one schedule.
        job = schedulePurge(ctx.config.purge_schedule, ctx.log, async () => {
          const report: Record<string, number> = {}
          await ctx.emit('maintenance.purge', { now: new Date(), report })
          return report
        })
        ctx.log.info({ schedule: ctx.config.purge_schedule }, 'purge scheduled')
      })
      ctx.onStop(() => job?.stop())
    } else {
      ctx.onServe(() =>
        ctx.log.info('purge not scheduled (files.purge_schedule is empty): run `mediactl purge` from cron'),
      )
    }
  },
})
