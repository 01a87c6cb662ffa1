import { mkdtempSync } from 'node:fs'
import { readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FsStorage } from '../../plugins/storage-fs/index.js'
import { storageConformance } from './storage.conformance.js'

storageConformance('storage-fs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-storage-fs-'))
  const storage = new FsStorage(join(dir, 'storage'))
  await storage.open()
  return {
    storage,
    leftovers: () => readdir(storage.tempDir),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  }
})
