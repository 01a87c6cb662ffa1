import { constants } from 'node:fs'
import { access, lstat, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { type Readable, Transform, type TransformCallback, pipeline } from 'node:stream'
import { FileStore } from '@tus/file-store'
import {
  RESUMABLE_UPLOAD_ID,
  type ResumableUploadsPort,
  checkResumableUploadId,
  finishedUpload,
} from '../../src/kernel/index.js'
import type { FsStorage } from './fs-storage.js'

/**
 * Folder of the tus uploads in progress under the storage root: on the same filesystem, so
 * a finished upload is renamed into place. `~` is not a key character: `list` never walks
 * into it, and the temporary-file sweep (`~tmp` only) leaves it alone.
 */
export const TUS_DIR = '~tus'

/** The tus extensions offered: no deferred length (quotas need the size first), no creation-based expiry. */
export const TUS_EXTENSIONS = ['creation', 'creation-with-upload', 'termination']

/** Bytes gathered before one write to disk: a request arrives in 64 KiB reads. */
const WRITE_BATCH = 1024 * 1024

/** Passes bytes on in blocks of about WRITE_BATCH, the rest when the source ends. */
class Batcher extends Transform {
  private held: Buffer[] = []
  private bytes = 0

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.held.push(chunk)
    this.bytes += chunk.length
    if (this.bytes < WRITE_BATCH) return callback()
    callback(null, this.gathered())
  }

  override _flush(callback: TransformCallback): void {
    callback(null, this.bytes ? this.gathered() : undefined)
  }

  private gathered(): Buffer {
    const block = Buffer.concat(this.held, this.bytes)
    this.held = []
    this.bytes = 0
    return block
  }
}

/**
 * FileStore, with two changes. Its constructor's own `mkdir` is skipped: a failure there is
 * thrown from a callback (an uncaught exception: a command that boots and removes its data
 * dir at once crashed on it); `FsResumableUploads.open` creates the folder first. And its
 * writes go to disk in blocks of WRITE_BATCH instead of one write per 64 KiB read, which
 * costs about a quarter of the server's CPU time on a large upload. A request that breaks
 * loses what the block held (the offset says so, and the client sends it again); one that
 * ends, or is ended by the protocol, writes it.
 */
class LocalTusStore extends FileStore {
  override write(readable: Readable, id: string, offset: number): Promise<number> {
    const batched = new Batcher()
    // A source error reaches FileStore's own pipeline through `batched`.
    pipeline(readable, batched, () => undefined)
    return super.write(batched, id, offset)
  }
}
;(LocalTusStore.prototype as unknown as { checkOrCreateDirectory(): void }).checkOrCreateDirectory = () => undefined

/** A tus store error (a plain `{ status_code, body }`) or anything else, as an Error naming the upload. */
/**
 * Resumable uploads on the local disk: @tus/file-store keeps each upload as `<id>` (the
 * bytes) and `<id>.json` (its length and metadata) in `<root>/~tus`; a finished upload is
 * flushed and renamed to its storage key, so a 1 GiB upload costs no second copy.
 */
export class FsResumableUploads implements ResumableUploadsPort {
  readonly dataStore: FileStore

  private constructor(
    private readonly storage: FsStorage,
    /** Absolute folder of the uploads in progress. */
    readonly directory: string,
  ) {
    this.dataStore = new LocalTusStore({ directory })
    this.dataStore.extensions = [...TUS_EXTENSIONS]
  }

  /** Creates the uploads folder under the storage root when missing, and checks it is writable. */
  static async open(storage: FsStorage): Promise<FsResumableUploads> {
    const directory = join(storage.root, TUS_DIR)
    try {
      await mkdir(directory, { recursive: true })
      await access(directory, constants.W_OK)
    } catch (error) {
      throw new Error(`storage-fs cannot keep tus uploads in ${directory}: ${(error as Error).message}`, {
        cause: error,
      })
    }
    return new FsResumableUploads(storage, directory)
  }

  async adopt(uploadId: string, key: string): Promise<{ size: number }> {
    await finishedUpload(this.dataStore, uploadId)
    const moved = await this.storage.moveIn(join(this.directory, uploadId), key)
    await rm(join(this.directory, `${uploadId}.json`), { force: true })
    return moved
  }

  async remove(uploadId: string): Promise<void> {
    checkResumableUploadId(uploadId)
    // The bytes first: an info file left alone is a leftover `expire` removes, bytes without one are too.
    await rm(join(this.directory, uploadId), { force: true })
    await rm(join(this.directory, `${uploadId}.json`), { force: true })
  }

  async expire(olderThan: Date): Promise<string[]> {
    let names: string[]
    try {
      names = await readdir(this.directory)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const ids = new Set(names.map((name) => name.replace(/\.json$/, '')).filter((id) => RESUMABLE_UPLOAD_ID.test(id)))
    const removed: string[] = []
    for (const id of ids) {
      // Writes move the bytes' modification time: the later of both files is the last activity.
      const times = await Promise.all(
        [id, `${id}.json`].map((name) =>
          lstat(join(this.directory, name)).then(
            (info) => info.mtimeMs,
            () => 0,
          ),
        ),
      )
      if (Math.max(...times) >= olderThan.getTime()) continue
      await this.remove(id)
      removed.push(id)
    }
    return removed
  }
}
