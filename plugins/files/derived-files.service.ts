import type { Readable } from 'node:stream'
import {
  type EntityManager,
  StorageLimitError,
  freeSlug,
  invalid,
  notFound,
  retryOnConflict,
  serviceKey,
  transaction,
} from '../../src/kernel/index.js'
import type { FileType } from '../metadata/index.js'
import { lockPlatform } from '../platforms/index.js'
import { DirectoryEntity } from './directory.entity.js'
import { fileQueries } from './file.queries.js'
import type { FilesDeps } from './files.deps.js'
import type { FileView } from './files.types.js'
import { overQuota, requireSpace, spaceLeft, spaceUsage } from './space.service.js'
import { StoredFileEntity } from './stored-file.entity.js'
import type { Uploader } from './files.types.js'
import { FILE_FIELD, newPrefix } from './upload.service.js'

/** A file made by the server from others (a logo insertion): where it goes, its name, what it will hold. */
export interface DerivedFile {
  owner: Uploader
  /** A directory of the owner, or null for the root. */
  directoryId: number | null
  name: string
  type: FileType
  mimeType: string
}

/**
 * Creates the row of a derived file before its bytes exist: `pending`, 0 bytes, under a
 * fresh storage prefix of its own (its source goes to `<prefix>source`, see
 * `storeDerivedSource`). Nothing is announced yet: `file.uploaded` comes with the bytes.
 * `then` runs in the same transaction (queueing the job that makes the bytes).
 */
export async function createDerivedFile(
  em: EntityManager,
  input: DerivedFile,
  then?: (tx: EntityManager, file: { id: number; slug: string }) => Promise<void>,
): Promise<number> {
  const prefix = newPrefix()
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const platform = await lockPlatform(tx, input.owner.platformId)
      const file = tx.create(StoredFileEntity, {
        slug: await freeSlug(tx, StoredFileEntity, input.name),
        name: input.name,
        size: 0,
        storedBytes: 0,
        type: input.type,
        mimeType: input.mimeType,
        encodingStatus: 0,
        encodingProgress: 0,
        encodingError: null,
        storageKey: `${prefix}source`,
        storagePrefix: prefix,
        metadata: {},
        user: tx.getReference('User', input.owner.id) as never,
        platform,
        directory: input.directoryId === null ? null : tx.getReference(DirectoryEntity, input.directoryId),
        createdAt: new Date(),
        updatedAt: new Date(),
      })
      await tx.flush()
      await then?.(tx, { id: file.id, slug: file.slug })
      return file.id
    }),
  )
}

/**
 * Stores the bytes of a derived file (`createDerivedFile`) as its source and records their
 * size, then announces `file.uploaded`, so it is encoded like any upload. The quotas are
 * checked like an upload's: the write stops once over the space left, and the commit locks
 * the platform row and checks both quotas exactly. 412 (naming `path`) when it does not
 * fit, 404 when the file was deleted meanwhile; either way nothing is kept. `hold` runs last
 * in the recording transaction (see JobContext.hold). No guard is
 * needed: the file's row owns its prefix, and deleting it removes everything under it.
 */
export async function storeDerivedSource(
  deps: FilesDeps,
  em: EntityManager,
  file: FileView,
  source: Readable,
  hold?: (tx: EntityManager) => Promise<void>,
): Promise<FileView> {
  const storage = deps.storage
  const owner = { id: file.userId, platformId: file.platformId }
  const usage = await spaceUsage(em.fork(), owner)
  const left = spaceLeft(usage)
  let size: number
  try {
    size = (await storage.write(file.storageKey, source, left === Infinity ? {} : { maxBytes: left })).size
  } catch (error) {
    if (error instanceof StorageLimitError) throw overQuota(usage, FILE_FIELD)
    throw error
  }
  try {
    if (size === 0) throw invalid({ [FILE_FIELD]: 'the file is empty (0 bytes)' })
    await retryOnConflict(() =>
      transaction(em, async (tx) => {
        await lockPlatform(tx, file.platformId)
        const row = await tx.findOne(StoredFileEntity, { id: file.id })
        if (!row) throw notFound('The file was deleted.')
        requireSpace(await spaceUsage(tx, owner), size - row.storedBytes, FILE_FIELD)
        row.size = size
        row.storedBytes = size
        row.updatedAt = new Date()
        await tx.flush()
        await deps.emit('file.uploaded', {
          em: tx,
          file: { id: row.id, slug: row.slug, name: row.name, platformId: file.platformId, type: row.type, size },
        })
        // Last: the job making the bytes still holds its run (not cancelled meanwhile).
        await hold?.(tx)
      }),
    )
  } catch (error) {
    await storage.delete(file.storageKey).catch((cleanup: unknown) => {
      deps.log.warn({ err: cleanup, key: file.storageKey }, 'derived bytes not removed')
    })
    throw error
  }
  const stored = await fileQueries.fileById(deps.reader, file.id)
  if (!stored) throw notFound('The file was deleted.')
  return stored
}

/** Files made by the server from others, for the plugins that make them (encoding's logo insertion). */
export interface DerivedFiles {
  /** `createDerivedFile`. */
  create(
    em: EntityManager,
    input: DerivedFile,
    then?: (tx: EntityManager, file: { id: number; slug: string }) => Promise<void>,
  ): Promise<number>
  /** `storeDerivedSource`. */
  storeSource(
    em: EntityManager,
    file: FileView,
    source: Readable,
    hold?: (tx: EntityManager) => Promise<void>,
  ): Promise<FileView>
}

/** The file store's derived files, for the plugins that depend on it. */
export const DERIVED_FILES = serviceKey<DerivedFiles>('files.derived')

export function derivedFiles(deps: FilesDeps): DerivedFiles {
  return {
    create: createDerivedFile,
    storeSource: (em, file, source, hold) => storeDerivedSource(deps, em, file, source, hold),
  }
}
