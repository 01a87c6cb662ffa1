import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FsStorage } from '../../../plugins/storage-fs/index.js'
import { TEMP_DIR } from '../../../plugins/storage-fs/temp-files.js'
import { ConfigError, StorageKeyError } from '../../../src/kernel/index.js'
import { bootOn } from '../../helpers/kernel.js'
import { readAll, streamOf } from '../../helpers/streams.js'

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mediactl-storage-fs-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function storageOf(options: Parameters<typeof bootOn>[1] = {}): Promise<FsStorage> {
  const kernel = await bootOn(dir, options)
  try {
    const storage = kernel.services.ports.get('storage')
    expect(storage).toBeInstanceOf(FsStorage)
    return storage as FsStorage
  } finally {
    await kernel.close()
  }
}

describe('storage-fs plugin', () => {
  it('is the default storage, under <data_dir>/storage', async () => {
    const storage = await storageOf()
    expect(storage.root).toBe(join(dir, 'storage'))
    expect(existsSync(join(dir, 'storage', TEMP_DIR))).toBe(true)
    await storage.write('media/1/source', streamOf(Buffer.from('bytes')))
    expect(existsSync(join(dir, 'storage', 'media', '1', 'source'))).toBe(true)
  })

  it('takes storage-fs.root: relative to data_dir, or absolute', async () => {
    expect((await storageOf({ overrides: { 'storage-fs': { root: 'files' } } })).root).toBe(join(dir, 'files'))
    const elsewhere = join(dir, 'elsewhere', 'deep')
    expect((await storageOf({ overrides: { 'storage-fs': { root: elsewhere } } })).root).toBe(elsewhere)
  })

  it('reads storage-fs.root from MEDIACTL_STORAGE_FS__ROOT', async () => {
    expect((await storageOf({ env: { MEDIACTL_STORAGE_FS__ROOT: 'from-env' } })).root).toBe(join(dir, 'from-env'))
  })

  it('refuses an unknown key of its section, naming it', async () => {
    await expect(storageOf({ overrides: { 'storage-fs': { rooot: 'x' } } })).rejects.toThrow(
      /storage-fs: unknown key "rooot" \(did you mean "root"\?\)/,
    )
    await expect(storageOf({ overrides: { 'storage-fs': { root: 'x', bad: 1 } } })).rejects.toBeInstanceOf(ConfigError)
  })

  it('stops the boot with a clear error when the root cannot be a folder', async () => {
    writeFileSync(join(dir, 'a-file'), 'not a folder')
    await expect(storageOf({ overrides: { 'storage-fs': { root: 'a-file/storage' } } })).rejects.toThrow(
      `storage-fs cannot use ${join(dir, 'a-file', 'storage')}`,
    )
  })

  it('removes temporary files older than a day at boot, and keeps younger ones', async () => {
    const temp = join(dir, 'storage', TEMP_DIR)
    mkdirSync(temp, { recursive: true })
    writeFileSync(join(temp, 'old.part'), 'crashed write')
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000)
    utimesSync(join(temp, 'old.part'), twoDaysAgo, twoDaysAgo)
    writeFileSync(join(temp, 'young.part'), 'write in flight in another process')
    await storageOf()
    expect(readdirSync(temp)).toEqual(['young.part'])
  })

  it('removes them again at each purge of a running server (maintenance.purge), keeping younger ones', async () => {
    const kernel = await bootOn(dir)
    try {
      await kernel.migrator.up()
      const temp = join(dir, 'storage', TEMP_DIR)
      writeFileSync(join(temp, 'killed.part'), 'upload cut by a kill -9')
      writeFileSync(join(temp, 'young.part'), 'write in flight')
      // Two days on, as the purge sees it: the first file is stale, the second was written then.
      const inTwoDays = new Date(Date.now() + 2 * 24 * 60 * 60 * 1000)
      utimesSync(join(temp, 'young.part'), inTwoDays, inTwoDays)
      const report: Record<string, number> = {}
      await kernel.services.events.emit('maintenance.purge', { now: inTwoDays, report })
      expect(report['temporary files of interrupted writes']).toBe(1)
      expect(readdirSync(temp)).toEqual(['young.part'])
    } finally {
      await kernel.close()
    }
  })

  it('is refused next to storage-s3: one storage backend only', async () => {
    await expect(
      storageOf({
        overrides: {
          plugins: ['root', 'platforms', 'identity', 'storage-fs', 'storage-s3'],
          'storage-s3': { bucket: 'media' },
        },
      }),
    ).rejects.toThrow('port "storage" has several providers (storage-fs, storage-s3): keep one')
  })
})

describe('FsStorage on disk', () => {
  let storage: FsStorage
  beforeEach(async () => {
    storage = new FsStorage(join(dir, 'root'))
    await storage.open()
  })

  it('refuses a key whose folder is a stored key, and the reverse, leaving both untouched', async () => {
    await storage.write('a', streamOf(Buffer.from('file a')))
    await expect(storage.write('a/b', streamOf(Buffer.from('x')))).rejects.toBeInstanceOf(StorageKeyError)
    await storage.write('c/d', streamOf(Buffer.from('file c/d')))
    await expect(storage.write('c', streamOf(Buffer.from('x')))).rejects.toThrow(
      'storage-fs cannot store "c": a stored key is its folder, or it is the folder of stored keys',
    )
    expect((await readAll(await storage.read('a'))).toString()).toBe('file a')
    expect((await readAll(await storage.read('c/d'))).toString()).toBe('file c/d')
    expect(readdirSync(storage.tempDir)).toEqual([])
  })

  it('removes the folders a delete empties, up to the root', async () => {
    await storage.write('m/1/x/source', streamOf(Buffer.from('x')))
    await storage.write('m/2/source', streamOf(Buffer.from('y')))
    await storage.delete('m/1/x/source')
    expect(existsSync(join(storage.root, 'm', '1'))).toBe(false)
    expect(existsSync(join(storage.root, 'm', '2', 'source'))).toBe(true)
    await storage.delete('m/2/source')
    expect(readdirSync(storage.root)).toEqual([TEMP_DIR])
  })

  it('deletes nothing for a key that is a folder of other keys', async () => {
    await storage.write('f/inner', streamOf(Buffer.from('x')))
    await storage.delete('f')
    expect(await storage.stat('f/inner')).not.toBeNull()
  })

  it('lists only keys: not the temporary folder, nor files with names keys cannot have', async () => {
    await storage.write('k/one', streamOf(Buffer.from('1')))
    writeFileSync(join(storage.tempDir, 'partial.part'), 'in flight')
    writeFileSync(join(storage.root, 'k', 'README.TXT'), 'put there by hand')
    writeFileSync(join(storage.root, 'k', 'with space'), 'put there by hand')
    const keys: string[] = []
    for await (const key of storage.list('')) keys.push(key)
    expect(keys).toEqual(['k/one'])
  })

  it('keeps nothing but the object: its temporary file is gone once written', async () => {
    await storage.write('t/object', streamOf(Buffer.alloc(300_000, 1)))
    expect(readdirSync(storage.tempDir)).toEqual([])
  })

  it('a read in progress keeps the object it opened when a write replaces it', async () => {
    await storage.write('r/object', streamOf(Buffer.alloc(200_000, 1)))
    const stream = await storage.read('r/object')
    await storage.write('r/object', streamOf(Buffer.alloc(100, 2)))
    const old = await readAll(stream)
    expect(old.length).toBe(200_000)
    expect(old.every((byte) => byte === 1)).toBe(true)
    expect((await readAll(await storage.read('r/object'))).length).toBe(100)
  })

  it('answers null for a signed URL: files are served through the API', async () => {
    expect(await storage.signedUrl('x/y', 60)).toBeNull()
  })
})
