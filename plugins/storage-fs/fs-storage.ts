import { type WriteStream, constants, createWriteStream } from 'node:fs'
import { type FileHandle, access, mkdir, open, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  type ByteRange,
  ByteCounter,
  StorageKeyError,
  StorageNotFoundError,
  type StoragePort,
  type StoredStat,
  type WriteOptions,
  checkByteRange,
  checkExpiry,
  checkStorageKey,
  checkStoragePrefix,
  emptyStream,
  isStorageKey,
} from '../../src/kernel/index.js'
import { TEMP_DIR, sweepTempDir, tempPath } from './temp-files.js'

/**
 * Bytes a write may gather while the previous one is on its way to the disk: they go in one
 * `writev` then, instead of one awaited write per chunk (64 KiB per socket read of an upload).
 * Fewer system calls and thread-pool round trips: about a fifth less server CPU per GiB
 * uploaded in bench/uploads.js, and the socket keeps being read while the disk writes.
 */
const WRITE_BUFFER = 1024 * 1024

/** Times a write retries moving its file into place when a concurrent delete removed the emptied folder. */
const MOVE_ATTEMPTS = 5

/**
 * The storage port on a local folder: a key `a/b/c` is the file `<root>/a/b/c`. A write
 * streams into `<root>/~tmp/`, is flushed to disk, then renamed into place, so a reader
 * sees the old object or the new one, never part of one, and a crash leaves at most a
 * temporary file (removed by `open` a day later). Because keys are paths, one key cannot
 * also be the folder of others (`a` and `a/b`): such a write fails with StorageKeyError.
 */
export class FsStorage implements StoragePort {
  /** Absolute folder holding the objects. */
  readonly root: string
  /** Folder of the writes in flight, on the same filesystem so the final rename is atomic. */
  readonly tempDir: string

  constructor(root: string) {
    this.root = resolve(root)
    this.tempDir = join(this.root, TEMP_DIR)
  }

  /**
   * Creates the root and its temporary folder when missing and removes temporary files a
   * crash left (older than a day). Resolves with how many it removed.
   */
  async open(): Promise<{ swept: number }> {
    try {
      await mkdir(this.root, { recursive: true })
      const swept = await sweepTempDir(this.tempDir)
      // Refused at boot rather than on the first upload.
      await access(this.tempDir, constants.W_OK)
      await access(this.root, constants.W_OK)
      return { swept }
    } catch (error) {
      throw new Error(`storage-fs cannot use ${this.root}: ${(error as Error).message}`, { cause: error })
    }
  }

  /** Resolves while the root and its temporary folder can be written (readiness). */
  async writable(): Promise<void> {
    await access(this.tempDir, constants.W_OK)
    await access(this.root, constants.W_OK)
  }

  /** Removes temporary files a crash left (older than a day); resolves with how many. */
  sweep(now = Date.now()): Promise<number> {
    return sweepTempDir(this.tempDir, now)
  }

  async write(key: string, body: Readable, options: WriteOptions = {}): Promise<{ size: number }> {
    const target = this.pathOf(key)
    const counter = new ByteCounter(options.maxBytes)
    let temp: string | undefined
    let file: WriteStream | undefined
    try {
      await mkdir(this.tempDir, { recursive: true })
      temp = tempPath(this.tempDir)
      // `flush`: on disk (fsync) before the file is closed, so before the rename makes it
      // visible: a crash then leaves the old object or the whole new one.
      file = createWriteStream(temp, { flags: 'wx', flush: true, highWaterMark: WRITE_BUFFER })
      await pipeline(body, counter, file)
      await this.moveIntoPlace(temp, target, key)
      return { size: counter.bytes }
    } catch (error) {
      body.destroy()
      // A source failing at once fails the pipeline while the file is still being opened: wait
      // until it is closed, or the removal below would run before the file exists.
      if (file && !file.closed) await new Promise<void>((resolve) => file!.once('close', () => resolve()))
      if (temp) await rm(temp, { force: true })
      throw error
    }
  }

  /**
   * Makes the file `path` the object `key`: flushed to disk, then renamed into place (no
   * copy), so it must be on the root's filesystem (a finished tus upload in `<root>/~tus`).
   * Resolves with its size. Like a write, a reader sees the whole object or none.
   */
  async moveIn(path: string, key: string): Promise<{ size: number }> {
    const target = this.pathOf(key)
    const file = await open(path, 'r+')
    let size: number
    try {
      // On disk before the rename makes it visible, as for a write.
      await file.sync()
      size = (await file.stat()).size
    } finally {
      await file.close()
    }
    await this.moveIntoPlace(path, target, key)
    return { size }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.pathOf(key)
    checkByteRange(range)
    let file: FileHandle
    try {
      file = await open(path, 'r')
    } catch (error) {
      if (isMissing(error)) throw notFound(key)
      throw error
    }
    // Reading through the open handle: a write replacing the object meanwhile renames a new
    // file into place, and this read keeps the old one whole.
    try {
      const info = await file.stat()
      if (!info.isFile()) throw notFound(key)
      const start = range?.start ?? 0
      const end = Math.min(range?.end ?? Infinity, info.size - 1)
      if (start > end) {
        await file.close()
        return emptyStream()
      }
      return file.createReadStream({ start, end })
    } catch (error) {
      await file.close()
      throw error
    }
  }

  async stat(key: string): Promise<StoredStat | null> {
    const path = this.pathOf(key)
    try {
      const info = await stat(path)
      return info.isFile() ? { size: info.size, modifiedAt: info.mtime } : null
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key)
    try {
      await unlink(path)
    } catch (error) {
      if (isMissing(error)) return
      // The folder of other keys is no object: there is nothing to delete.
      if ((await stat(path).catch(() => null))?.isDirectory()) return
      throw error
    }
    await this.pruneFolders(dirname(path))
  }

  async *list(prefix: string): AsyncIterable<string> {
    checkStoragePrefix(prefix)
    const folder = prefix ? this.pathOf(prefix.slice(0, -1)) : this.root
    yield* this.walk(folder, prefix)
  }

  async signedUrl(key: string, expiresInSeconds: number): Promise<string | null> {
    this.pathOf(key)
    checkExpiry(expiresInSeconds)
    // Local files have no address of their own: they are served through the API.
    return null
  }

  /** The file of a key, after checking that the key is valid and stays under the root. */
  private pathOf(key: string): string {
    checkStorageKey(key)
    const path = resolve(this.root, ...key.split('/'))
    // STORAGE_KEY already refuses `..`; this keeps any path outside the root out of reach whatever the pattern says.
    if (!path.startsWith(this.root + sep)) throw new StorageKeyError(`storage key "${key}" leaves the storage root`)
    return path
  }

  private async moveIntoPlace(temp: string, target: string, key: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await mkdir(dirname(target), { recursive: true })
        await rename(temp, target)
        break
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        // A delete of the last object of a folder removes the folder, maybe between mkdir and rename.
        if (code === 'ENOENT' && attempt < MOVE_ATTEMPTS) continue
        if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR' || code === 'ENOTEMPTY') {
          throw new StorageKeyError(
            `storage-fs cannot store "${key}": a stored key is its folder, or it is the folder of stored keys`,
          )
        }
        throw error
      }
    }
    await syncFolder(dirname(target))
  }

  /** Removes `folder` and its parents up to the root while they are empty, so deleted media leave no folders. */
  private async pruneFolders(folder: string): Promise<void> {
    for (let dir = folder; dir.startsWith(this.root + sep); dir = dirname(dir)) {
      try {
        await rmdir(dir)
      } catch {
        return
      }
    }
  }

  /** Keys under `folder`, in name order per folder; skips the temporary folder and any file that is not a key. */
  private async *walk(folder: string, prefix: string): AsyncIterable<string> {
    let entries
    try {
      entries = await readdir(folder, { withFileTypes: true })
    } catch (error) {
      if (isMissing(error)) return
      throw error
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const key = prefix + entry.name
      if (!isStorageKey(key)) continue
      if (entry.isDirectory()) yield* this.walk(join(folder, entry.name), `${key}/`)
      else if (entry.isFile()) yield key
    }
  }
}

/** Makes a rename in `folder` durable; some platforms cannot sync a folder, where the rename stays atomic anyway. */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await open(folder, 'r')
    await handle.sync()
  } catch {
    // Durability of the rename is best effort; its atomicity does not depend on it.
  } finally {
    await handle?.close()
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

function notFound(key: string): StorageNotFoundError {
  return new StorageNotFoundError(`nothing is stored under "${key}"`)
}
