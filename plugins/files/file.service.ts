import { type EntityManager, type Row, invalid, notFound, transaction } from '../../src/kernel/index.js'
import { type MetadataDefinitionView, type MetadataValue, checkMetadataValues } from '../metadata/index.js'
import { fileView } from './file.queries.js'
import { DirectoryEntity } from './directory.entity.js'
import type { FileView } from './files.types.js'
import { PendingUploadEntity } from './pending-upload.entity.js'
import { StoredFileEntity } from './stored-file.entity.js'
import { emptyAfterCommit, emptyTrash, trash } from './trash.service.js'
import type { FilesDeps } from './files.deps.js'

const FILE_ROWS = `select f.*, u.username, d.slug as directory_slug from files f join users u on u.id = f.user_id
  left join directories d on d.id = f.directory_id`

/**
 * Deletes files inside the caller's transaction: `file.deleted` first (resources made from
 * them go), then their rows; their stored bytes are trashed, removed after the commit.
 */
export async function deleteFiles(deps: FilesDeps, tx: EntityManager, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return
  const rows = await tx.execute<Row[]>(`${FILE_ROWS} where f.id in (${ids.map(() => '?').join(',')})`, [...ids])
  const files = rows.map(fileView)
  await deps.emit('file.deleted', { em: tx, files })
  trash(
    tx,
    files.map((file) => file.storagePrefix),
  )
  await tx.nativeDelete(StoredFileEntity, { id: { $in: [...ids] } })
}

/** Deletes one file and then its stored bytes. */
export async function deleteFile(deps: FilesDeps, em: EntityManager, file: FileView): Promise<void> {
  await transaction(em, (tx) => deleteFiles(deps, tx, [file.id]))
  await emptyTrash(deps, em)
}

/** Deletes everything a user stores (their files, directories and chunked uploads under way). */
export async function deleteUserFiles(deps: FilesDeps, tx: EntityManager, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return
  const files = await tx.find(StoredFileEntity, { user: { $in: [...userIds] } }, { fields: ['id'] })
  await deleteFiles(
    deps,
    tx,
    files.map((file) => file.id),
  )
  const pending = await tx.find(PendingUploadEntity, { user: { $in: [...userIds] } })
  trash(
    tx,
    pending.flatMap((upload) => upload.pieces),
  )
  await tx.nativeDelete(PendingUploadEntity, { user: { $in: [...userIds] } })
  await tx.execute(`delete from directories where user_id in (${userIds.map(() => '?').join(',')})`, [...userIds])
  // The caller's transaction commits after this returns: its trash is emptied then.
  emptyAfterCommit(tx)
}

/** What `PUT /file/<slug>` may change. */
export interface FileChanges {
  name?: string
  /** `metadata[<name>]` fields as sent. */
  metadata?: Record<string, unknown>
  /** The owner's directory to move the file into, null for the root; undefined: it stays. */
  directoryId?: number | null
}

/**
 * Applies a partial update: a new name, and metadata values checked against the
 * platform's definitions and the file's type (412 naming each wrong `metadata[<name>]`).
 * Values are stored by definition id, so renaming a definition keeps them.
 */
export async function updateFile(
  em: EntityManager,
  file: FileView,
  changes: FileChanges,
  definitions: readonly MetadataDefinitionView[],
): Promise<void> {
  let values: Record<string, MetadataValue | null> = {}
  if (changes.metadata) {
    const check = checkMetadataValues(definitions, changes.metadata as never, file.type)
    if (Object.keys(check.errors).length) throw invalid(check.errors)
    values = check.values
  }
  const idOf = new Map(definitions.map((definition) => [definition.name, String(definition.id)]))
  await transaction(em, async (tx) => {
    const row = await tx.findOne(StoredFileEntity, { id: file.id })
    if (!row) throw notFound(`No file "${file.slug}".`)
    if (changes.name !== undefined) row.name = changes.name
    if (changes.directoryId !== undefined) {
      row.directory = changes.directoryId === null ? null : tx.getReference(DirectoryEntity, changes.directoryId)
    }
    const metadata = { ...row.metadata }
    for (const [name, value] of Object.entries(values)) {
      const id = idOf.get(name)!
      if (value === null) delete metadata[id]
      else metadata[id] = value
    }
    row.metadata = metadata
    row.updatedAt = new Date()
    await tx.flush()
  })
}

/** Drops the values of a deleted metadata definition from every file of its platform. */
export async function dropMetadataValues(tx: EntityManager, definition: MetadataDefinitionView): Promise<void> {
  const key = String(definition.id)
  const files = await tx.find(StoredFileEntity, { platform: definition.platformId })
  for (const file of files) {
    if (!(key in file.metadata)) continue
    const { [key]: _dropped, ...rest } = file.metadata
    file.metadata = rest
  }
  await tx.flush()
}
