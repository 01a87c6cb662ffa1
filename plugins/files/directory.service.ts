import { type EntityManager, freeSlug, notFound, retryOnConflict, transaction } from '../../src/kernel/index.js'
import { DirectoryEntity } from './directory.entity.js'
import { fileQueries } from './file.queries.js'
import type { DirectoryView } from './files.types.js'
import { deleteFiles } from './file.service.js'
import { PendingUploadEntity } from './pending-upload.entity.js'
import { StoredFileEntity } from './stored-file.entity.js'
import { emptyTrash, trash } from './trash.service.js'
import type { FilesDeps } from './files.deps.js'

/** Creates a directory of a user under `parentId` (null: in the root); slug from the name. */
export async function createDirectory(
  deps: FilesDeps,
  em: EntityManager,
  userId: number,
  parentId: number | null,
  name: string,
): Promise<DirectoryView> {
  const slug = await retryOnConflict(() =>
    transaction(em, async (tx) => {
      const directory = tx.create(DirectoryEntity, {
        slug: await freeSlug(tx, DirectoryEntity, name),
        name,
        user: tx.getReference('User', userId) as never,
        parent: parentId === null ? null : tx.getReference(DirectoryEntity, parentId),
        createdAt: new Date(),
      })
      await tx.flush()
      return directory.slug
    }),
  )
  return (await fileQueries.directoryBySlug(deps.reader, slug))!
}

/** Renames a directory (its slug stays). */
export async function renameDirectory(
  deps: FilesDeps,
  em: EntityManager,
  directory: DirectoryView,
  name: string,
): Promise<DirectoryView> {
  const changed = await em.nativeUpdate(DirectoryEntity, { id: directory.id }, { name })
  if (changed === 0) throw notFound(`No directory "${directory.slug}".`)
  return { ...directory, name }
}

/** The ids of a directory and of every directory below it. */
async function subtree(tx: EntityManager, rootId: number): Promise<number[]> {
  const ids = [rootId]
  for (let level = [rootId]; level.length > 0;) {
    const children = await tx.find(DirectoryEntity, { parent: { $in: level } }, { fields: ['id'] })
    level = children.map((child) => child.id)
    ids.push(...level)
  }
  return ids
}

/**
 * Deletes a directory, everything below it, their files (announced with `file.deleted`,
 * so what was made from them goes too) and chunked uploads under way into them, in one
 * transaction; the stored bytes are removed once it commits.
 */
export async function deleteDirectory(deps: FilesDeps, em: EntityManager, directory: DirectoryView): Promise<void> {
  await transaction(em, async (tx) => {
    const ids = await subtree(tx, directory.id)
    const files = await tx.find(StoredFileEntity, { directory: { $in: ids } }, { fields: ['id'] })
    await deleteFiles(
      deps,
      tx,
      files.map((file) => file.id),
    )
    const pending = await tx.find(PendingUploadEntity, { directory: { $in: ids } })
    trash(
      tx,
      pending.flatMap((upload) => upload.pieces),
    )
    await tx.nativeDelete(PendingUploadEntity, { id: { $in: pending.map((upload) => upload.id) } })
    // Deepest first, so no row is left pointing at a deleted parent whatever the foreign keys do.
    for (const id of ids.reverse()) await tx.nativeDelete(DirectoryEntity, { id })
  })
  await emptyTrash(deps, em)
}
