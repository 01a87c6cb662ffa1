import { constants } from 'node:fs'
import { access, lstat, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { FileStore } from '@tus/file-store'
import { RESUMABLE_UPLOAD_ID, type ResumableUploadsPort } from '../../src/kernel/index.js'
import type { FsStorage } from './fs-storage.js'

/**
 * Folder of the tus uploads in progress under the storage root: on the same filesystem, so
 * a finished upload is renamed into place. `~` is not a key character: `list` never walks
 * into it, and the temporary-file sweep (`~tmp` only) leaves it alone.
 */
export const TUS_DIR = '~tus'

/** The tus extensions offered: no deferred length (quotas need the size first), no creation-based expiry. */
export const TUS_EXTENSIONS = ['creation', 'creation-with-upload', 'termination']

/** A tus store error (a plain `{ status_code, body }`) or anything else, as an Error naming the upload. */
function uploadError(id: string, error: unknown): Error {
  if (error instanceof Error) return error
  const body = (error as { body?: string } | undefined)?.body?.trim()
  return new Error(`tus upload "${id}": ${body || String(error)}`)
}

function checkId(id: string): void {
  if (!RESUMABLE_UPLOAD_ID.test(id)) throw new Error(`"${id}" is not a resumable upload id`)
}

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
    this.dataStore = new FileStore({ directory })
    this.dataStore.extensions = [...TUS_EXTENSIONS]
  }

  /**
   * Creates the uploads folder under the storage root when missing (before FileStore, whose
   * own attempt cannot report a failure) and checks it is writable.
   */
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
    checkId(uploadId)
    let upload
    try {
      upload = await this.dataStore.getUpload(uploadId)
    } catch (error) {
      throw uploadError(uploadId, error)
    }
    if (upload.size === undefined || upload.offset !== upload.size) {
      throw new Error(`tus upload "${uploadId}" is not complete (${upload.offset} of ${upload.size ?? '?'} bytes)`)
    }
    const moved = await this.storage.moveIn(join(this.directory, uploadId), key)
    await rm(join(this.directory, `${uploadId}.json`), { force: true })
    return moved
  }

  async remove(uploadId: string): Promise<void> {
    checkId(uploadId)
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
