import type { EntityManager } from '../../src/kernel/index.js'
import { notFound } from '../../src/kernel/index.js'
import type { FileType } from '../metadata/index.js'
import { lockPlatform } from '../platforms/index.js'
import { type EncodingRetry, type EncodingStatus, encodingCode } from './files.types.js'
import { requireSpace, spaceLeft, spaceUsage } from './space.service.js'
import { type StoredFile, StoredFileEntity } from './stored-file.entity.js'

/** A change of a file's encoding state, as the media pipeline makes it (every member optional). */
export interface EncodingChange {
  status?: EncodingStatus
  /** 0 to 100; never lowers the stored progress unless the status changes. */
  progress?: number
  /** Why encoding failed (shown as `encoding_error`); cleared by any status but `failed`. */
  error?: string | null
  /** The type the probe found (API-DECISIONS: decided by content). */
  type?: FileType
  mimeType?: string
  /** With `waiting`: the retry it waits for (cleared by any other status change). */
  retry?: EncodingRetry | null
}

const RUNNING = encodingCode('running')
const noRetry = { encodingAttempt: null, encodingMaxAttempts: null, encodingNextTry: null }
const retryFields = (retry: EncodingRetry): Partial<StoredFile> => ({
  encodingAttempt: retry.attempt,
  encodingMaxAttempts: retry.maxAttempts,
  encodingNextTry: retry.nextTry,
})
const clamp = (percent: number): number => Math.min(100, Math.max(0, percent))

/**
 * Records a file's encoding state for the media pipeline (no-op for a deleted file).
 * Progress is monotonic: alone, it only ever raises the stored value, so a status poll never
 * sees it go back. `running` starts from 0 unless the file is already running (a run cut
 * short by a crash, run again, keeps what was shown); `waiting` and `pending` start from 0;
 * `finished` shows 100.
 */
export async function setEncodingState(em: EntityManager, fileId: number, change: EncodingChange): Promise<void> {
  const now = new Date()
  const fields: Partial<StoredFile> = {}
  if (change.type !== undefined) fields.type = change.type
  if (change.mimeType !== undefined) fields.mimeType = change.mimeType
  const { status } = change
  if (status === 'running') {
    await em.nativeUpdate(
      StoredFileEntity,
      { id: fileId, encodingStatus: { $ne: RUNNING } },
      { encodingStatus: RUNNING, encodingProgress: 0, encodingError: null, ...noRetry, updatedAt: now },
    )
  } else if (status !== undefined) {
    fields.encodingStatus = encodingCode(status)
    fields.encodingError = status === 'failed' ? (change.error ?? 'encoding failed') : null
    Object.assign(fields, status === 'waiting' && change.retry ? retryFields(change.retry) : noRetry)
    if (status === 'finished') fields.encodingProgress = 100
    else if (status === 'waiting' || status === 'pending') fields.encodingProgress = 0
    else if (change.progress !== undefined) fields.encodingProgress = clamp(change.progress)
  }
  if (Object.keys(fields).length) await em.nativeUpdate(StoredFileEntity, { id: fileId }, { ...fields, updatedAt: now })
  if (change.progress !== undefined && (status === undefined || status === 'running')) {
    const progress = clamp(change.progress)
    // Progress belongs to a run: a late write of a run that ended never moves a waiting or failed file.
    await em.nativeUpdate(
      StoredFileEntity,
      { id: fileId, encodingStatus: RUNNING, encodingProgress: { $lt: progress } },
      { encodingProgress: progress, updatedAt: now },
    )
  }
}

/**
 * Sets the bytes a file stores beyond its original (renditions, snapshots), inside the
 * caller's transaction, so they count in `used_space` and the quotas. Like an upload's
 * commit, it locks the platform row and checks both limits exactly for the growth; over
 * either, it throws the 412 of the quotas, naming `field`. 404 when the file is gone.
 */
export async function setExtraBytes(
  tx: EntityManager,
  fileId: number,
  extraBytes: number,
  field: string,
): Promise<void> {
  const owner = await tx.execute<{ platform_id: number | string }[]>('select platform_id from files where id = ?', [
    fileId,
  ])
  if (!owner[0]) throw notFound('The file was deleted.')
  await lockPlatform(tx, Number(owner[0].platform_id))
  const rows = await tx.execute<{ size: number | string; stored_bytes: number | string; user_id: number | string }[]>(
    'select size, stored_bytes, user_id from files where id = ?',
    [fileId],
  )
  const row = rows[0]
  if (!row) throw notFound('The file was deleted.')
  const stored = Number(row.size) + extraBytes
  const growth = stored - Number(row.stored_bytes)
  if (growth > 0) {
    const usage = await spaceUsage(tx, { id: Number(row.user_id), platformId: Number(owner[0].platform_id) })
    requireSpace(usage, growth, field)
  }
  await tx.nativeUpdate(StoredFileEntity, { id: fileId }, { storedBytes: stored, updatedAt: new Date() })
}

/** Bytes a user may still store (Infinity when neither the platform nor the profile limits them). */
export async function spaceLeftFor(em: EntityManager, user: { id: number; platformId: number }): Promise<number> {
  return spaceLeft(await spaceUsage(em, user))
}

/**
 * Throws the 412 of the quotas (naming `field`) unless `bytes` more fit, without a lock: a
 * cheap early check before storing what `setExtraBytes` will count exactly.
 */
export async function requireSpaceFor(
  em: EntityManager,
  user: { id: number; platformId: number },
  bytes: number,
  field: string,
): Promise<void> {
  if (bytes > 0) requireSpace(await spaceUsage(em, user), bytes, field)
}
