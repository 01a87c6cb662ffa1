import type { EntityManager } from '../../src/kernel/index.js'
import { StorageTrashEntity } from './storage-trash.entity.js'
import type { FilesDeps } from './files.deps.js'

/** Transactions whose trash `emptyTrashOnCommit` empties once they commit (see `emptyAfterCommit`). */
const toEmpty = new WeakSet<EntityManager>()

/** Records stored bytes to remove (prefixes ending with `/`, or keys), in the caller's transaction. */
export function trash(tx: EntityManager, targets: readonly string[]): void {
  const now = new Date()
  for (const target of targets) tx.create(StorageTrashEntity, { target, notBefore: now, createdAt: now })
}

/**
 * Has the trash emptied as soon as `tx`, a transaction the file store only joins, commits:
 * deleting a user or a platform runs in the identity and platforms plugins' transaction
 * (`user.deleting`, `platform.users-deleting`), after which nothing of the file store runs.
 * The file store's own deletions call `emptyTrash` themselves once they committed.
 */
export function emptyAfterCommit(tx: EntityManager): void {
  toEmpty.add(tx)
}

/**
 * Empties the trash after the commit of each transaction given to `emptyAfterCommit`. A
 * rolled-back transaction removes nothing. A failure is logged: the purge job retries.
 */
export function emptyTrashOnCommit(deps: FilesDeps): void {
  deps
    .em()
    .getEventManager()
    .registerSubscriber({
      afterTransactionCommit: async ({ em: committed }) => {
        if (!toEmpty.delete(committed as EntityManager)) return
        await emptyTrash(deps, deps.em()).catch((error: unknown) =>
          deps.log.warn({ err: error }, 'trash not emptied after commit; the purge job retries'),
        )
      },
    })
}

/**
 * Files the prefix of an upload about to stream in, due in `seconds`: if the process dies
 * before the bytes are recorded, the purge job removes them then. Answers the guard's id,
 * for `releaseGuard` in the transaction that records the bytes.
 */
export async function guardUpload(em: EntityManager, prefix: string, seconds: number): Promise<number> {
  const fork = em.fork()
  const now = new Date()
  const guard = fork.create(StorageTrashEntity, {
    target: prefix,
    notBefore: new Date(now.getTime() + seconds * 1000),
    createdAt: now,
  })
  await fork.flush()
  return guard.id
}

/** Takes an upload's guard back: its bytes are recorded (or were removed). */
export async function releaseGuard(em: EntityManager, id: number | undefined): Promise<void> {
  if (id !== undefined) await em.nativeDelete(StorageTrashEntity, { id })
}

async function remove(deps: FilesDeps, target: string): Promise<void> {
  const storage = deps.storage
  if (!target.endsWith('/')) return storage.delete(target)
  for await (const key of storage.list(target)) await storage.delete(key)
}

/**
 * Removes trashed bytes from storage and forgets each target once it is gone. Called after
 * a deleting transaction commits, and by the purge job for whatever failed then. A failure
 * is logged and left for the next run: the rows are already gone, nothing points at the bytes.
 */
export async function emptyTrash(deps: FilesDeps, em: EntityManager, limit = 1000): Promise<number> {
  const fork = em.fork()
  const items = await fork.find(
    StorageTrashEntity,
    { notBefore: { $lte: new Date() } },
    { orderBy: { id: 'asc' }, limit },
  )
  let removed = 0
  for (const item of items) {
    try {
      await remove(deps, item.target)
      await fork.nativeDelete(StorageTrashEntity, { id: item.id })
      removed++
    } catch (error) {
      deps.log.warn({ err: error, target: item.target }, 'stored bytes not removed yet; the purge job retries')
    }
  }
  return removed
}
