import { type EntityManager, invalid, transaction } from '../../src/kernel/index.js'
import { setEncodingState, setExtraBytes } from '../files/index.js'
import { type Rendition, RenditionEntity, type RenditionKind } from './rendition.entity.js'

/** A rendition whose bytes are stored, to record. */
export interface NewRendition {
  kind: RenditionKind
  name: string
  storageKey: string
  size: number
  mimeType: string
  width?: number | null
  height?: number | null
  duration?: number | null
  selected?: boolean
}

/** The field quota failures of a run name (the reason then reads "not enough space for the renditions: ..."). */
export const RENDITIONS_FIELD = 'renditions'

const isCustom = (row: Pick<Rendition, 'kind' | 'name'>): boolean => row.kind === 'snapshot' && row.name === 'custom'

function create(tx: EntityManager, fileId: number, rendition: NewRendition): Rendition {
  return tx.create(RenditionEntity, {
    file: fileId as never,
    kind: rendition.kind,
    name: rendition.name,
    storageKey: rendition.storageKey,
    size: rendition.size,
    mimeType: rendition.mimeType,
    width: rendition.width ?? null,
    height: rendition.height ?? null,
    duration: rendition.duration ?? null,
    selected: rendition.selected ?? false,
    createdAt: new Date(),
  })
}

/**
 * Records a run's renditions as the file's set, in one transaction: the previous set's rows
 * go (a custom snapshot stays: it is the user's, and stays selected when it was), the new
 * rows come, the file's stored bytes become the original plus the set (checked against the
 * quotas under the platform lock: 412 naming `renditions` when over; 404 when the file was
 * deleted meanwhile) and its status `success`. A crash before the commit leaves the previous
 * set whole; after it, the new one. `hold` runs last in the transaction: it throws (and
 * nothing is recorded) when the job recording the set no longer holds it (JobContext.hold).
 */
export async function replaceRenditions(
  em: EntityManager,
  fileId: number,
  set: readonly NewRendition[],
  hold: (tx: EntityManager) => Promise<void>,
) {
  await transaction(em, async (tx) => {
    const existing = await tx.find(RenditionEntity, { file: fileId })
    const custom = existing.find(isCustom)
    const total = set.reduce((sum, rendition) => sum + rendition.size, custom?.size ?? 0)
    // First: it locks the platform row, before any row of the set is touched.
    await setExtraBytes(tx, fileId, total, RENDITIONS_FIELD)
    await tx.nativeDelete(RenditionEntity, { file: fileId, id: { $nin: custom ? [custom.id] : [] } })
    for (const rendition of set) create(tx, fileId, { ...rendition, selected: !custom?.selected && rendition.selected })
    await tx.flush()
    await setEncodingState(tx, fileId, { status: 'success' })
    await hold(tx)
  })
}

/**
 * Selects a snapshot (the file's thumbnail from then on): 412 naming `id` when the file has
 * no snapshot of that id.
 */
export async function selectSnapshot(em: EntityManager, fileId: number, id: string): Promise<void> {
  await transaction(em, async (tx) => {
    const snapshots = await tx.find(RenditionEntity, { file: fileId, kind: 'snapshot' })
    if (!snapshots.some((snapshot) => snapshot.name === id)) {
      const ids = snapshots.map((snapshot) => snapshot.name)
      throw invalid({
        id: ids.length
          ? `no snapshot "${id}": this file has ${ids.sort().join(', ')}`
          : `no snapshot "${id}": this file has no snapshots (yet)`,
      })
    }
    for (const snapshot of snapshots) snapshot.selected = snapshot.name === id
    await tx.flush()
  })
}

/**
 * Records an uploaded image as the `custom` snapshot, selected, replacing an earlier one, and
 * counts it in the file's stored bytes (quotas checked under the platform lock: 412 naming
 * `field` when over). Answers the storage key of the custom image it replaced, to remove
 * once committed.
 */
export async function storeCustomSnapshot(
  em: EntityManager,
  fileId: number,
  image: Omit<NewRendition, 'kind' | 'name' | 'selected'>,
  field: string,
): Promise<string | undefined> {
  return transaction(em, async (tx) => {
    const existing = await tx.find(RenditionEntity, { file: fileId })
    const old = existing.find(isCustom)
    const total = existing.filter((row) => row !== old).reduce((sum, row) => sum + row.size, image.size)
    await setExtraBytes(tx, fileId, total, field)
    if (old) tx.remove(old)
    for (const row of existing) if (row !== old) row.selected = false
    // The old row goes first: (file, kind, name) is unique.
    await tx.flush()
    create(tx, fileId, { ...image, kind: 'snapshot', name: 'custom', selected: true })
    await tx.flush()
    return old?.storageKey
  })
}

/** Removes the rendition rows of files about to be deleted (their bytes go with the file's storage prefix). */
export async function deleteRenditions(tx: EntityManager, fileIds: readonly number[]): Promise<void> {
  if (fileIds.length) await tx.nativeDelete(RenditionEntity, { file: { $in: [...fileIds] } })
}
