import { resolve } from 'node:path'
import { z } from 'zod'
import { definePlugin } from '../../src/kernel/index.js'
import { FsResumableUploads } from './fs-resumable-uploads.js'
import { FsStorage } from './fs-storage.js'

export { FsStorage } from './fs-storage.js'
export { FsResumableUploads, TUS_DIR } from './fs-resumable-uploads.js'

const configSchema = z
  .object({
    /**
     * Folder of the stored files; empty: `<data_dir>/storage`. A relative path is relative to
     * data_dir. Keep it on one filesystem: writes are renamed into place from its `~tmp` folder,
     * finished tus uploads from its `~tus` folder.
     */
    root: z.string().default(''),
  })
  .strict()

/**
 * The default storage backend: file bytes on the local disk, under the data dir. Right for
 * one machine; several serving processes need a shared store (storage-s3). Also keeps tus
 * uploads in progress (`<root>/~tus`), renamed into place when they finish.
 */
export default definePlugin({
  name: 'storage-fs',
  provides: ['storage', 'resumableUploads'],
  config: configSchema,
  async register(ctx) {
    const storage = new FsStorage(resolve(ctx.kernelConfig.data_dir, ctx.config.root || 'storage'))
    const { swept } = await storage.open()
    if (swept) ctx.log.info({ root: storage.root, swept }, 'removed temporary files left by an interrupted write')
    // A long-running server sweeps too (a killed upload's partial write), not only at its next start.
    ctx.on('maintenance.purge', async ({ now, report }) => {
      report['temporary files of interrupted writes'] = await storage.sweep(now.getTime())
    })
    ctx.ready('storage (storage-fs)', () => storage.writable())
    ctx.provide('storage', storage)
    ctx.provide('resumableUploads', await FsResumableUploads.open(storage))
  },
})
