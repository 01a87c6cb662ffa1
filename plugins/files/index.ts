import type { CronJob } from 'cron'
import { definePlugin } from '../../src/kernel/index.js'
import '../identity/index.js'
import { DirectoryEntity } from './directory.entity.js'
import { directoryRoutes } from './directory.routes.js'
import { fileQueries } from './file.queries.js'
import { fileRoutes } from './file.routes.js'
import { deleteUserFiles, dropMetadataValues } from './file.service.js'
import { filesConfigSchema } from './files.config.js'
import './files.events.js'
import init from './migrations/20261122-files-init.js'
import { PendingUploadEntity } from './pending-upload.entity.js'
import { StorageTrashEntity } from './storage-trash.entity.js'
import { StoredFileEntity } from './stored-file.entity.js'
import { type PurgeStep, purge, schedulePurge } from './purge.job.js'
import { uploadEndpointRoutes } from './upload-endpoint.routes.js'
import { uploadLinkRoutes } from './upload-link.routes.js'
import { uploadRoutes } from './upload.routes.js'

export { type StoredFile, StoredFileEntity } from './stored-file.entity.js'
export { type Directory, DirectoryEntity } from './directory.entity.js'
export { fileQueries } from './file.queries.js'
export {
  ENCODING_STATUSES,
  encodingCode,
  type DirectoryView,
  type EncodingStatus,
  type FileView,
} from './files.types.js'
export { ownFile } from './files.lookup.js'

/**
 * The file store: each user's directories and files (`/files`, `/file/<slug>`), every
 * upload path (multipart, chunked, upload links with their html, json and tus endpoints),
 * space quotas, and the purge job. New files are announced with `file.uploaded`, deleted
 * ones with `file.deleted`.
 */
export default definePlugin({
  name: 'files',
  dependsOn: ['platforms', 'identity', 'metadata'],
  config: filesConfigSchema,
  entities: [DirectoryEntity, StoredFileEntity, PendingUploadEntity, StorageTrashEntity],
  migrations: [init],
  register(ctx) {
    ctx.routes((r) => {
      uploadLinkRoutes(r, ctx.config)
      uploadEndpointRoutes(r, ctx.config)
      uploadRoutes(r, ctx.config)
      directoryRoutes(r)
      fileRoutes(r)
    })
    ctx.on('platform.describe', async ({ reader, platform, stats }) => {
      stats.usedSpace = await fileQueries.platformBytes(reader, platform.id)
    })
    ctx.on('user.deleting', ({ em, user }) => deleteUserFiles(ctx.services, em, [user.id]))
    ctx.on('platform.users-deleting', ({ em, userIds }) => deleteUserFiles(ctx.services, em, userIds))
    ctx.on('metadata.deleted', ({ em, definition }) => dropMetadataValues(em, definition))
    const purgeSteps: PurgeStep[] = []
    const runPurge = () => purge(ctx.services, ctx.em(), ctx.config, purgeSteps)
    if (ctx.config.purge_schedule) {
      let job: CronJob | undefined
      ctx.onServe(() => {
        job = schedulePurge(ctx.config.purge_schedule, ctx.log, runPurge)
      })
      ctx.onStop(() => job?.stop())
    }
  },
})
