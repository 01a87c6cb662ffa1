import {
  type EntityManager,
  HttpError,
  type ResumableUploadsPort,
  invalid,
  tooLarge,
  transaction,
} from '../../src/kernel/index.js'
import { lockPlatform } from '../platforms/index.js'
import { SNIFF_BYTES, sniff } from './content-type.js'
import { DirectoryEntity } from './directory.entity.js'
import type { FilesConfig } from './files.config.js'
import type { FileView } from './files.types.js'
import { type PendingUpload, PendingUploadEntity } from './pending-upload.entity.js'
import type { PurgeStep } from './purge.job.js'
import { requireSpace, spaceUsage } from './space.service.js'
import { guardUpload } from './trash.service.js'
import type { Uploader } from './files.types.js'
import { type ReceivedBytes, commitFile, discard, newPrefix } from './upload.service.js'
import type { FilesDeps } from './files.deps.js'

/**
 * The field tus answers name: the header that says how large the upload is.
 * (412 and 413 answers of the other upload paths name the file field instead.)
 */
export const LENGTH_FIELD = 'Upload-Length'

/**
 * A tus upload holds its declared length as a pending upload row (the quota reservation),
 * named `tus/<id>` with no pieces and 0 chunks. No chunked upload can use such a name: their
 * names are file names (`safeFileName`), which never hold a `/`.
 */
export const reservationName = (uploadId: string): string => `tus/${uploadId}`

/** The reservation of an upload of `userId`, or null (another user's, finished, terminated, expired). */
export function reservationOf(em: EntityManager, uploadId: string, userId: number): Promise<PendingUpload | null> {
  return em.fork().findOne(PendingUploadEntity, { name: reservationName(uploadId), user: userId, chunks: 0 })
}

/** Marks the upload as active now, so the purge leaves its reservation alone for another `files.pending_ttl`. */
export async function touchReservation(em: EntityManager, uploadId: string): Promise<void> {
  await em
    .fork()
    .nativeUpdate(PendingUploadEntity, { name: reservationName(uploadId), chunks: 0 }, { updatedAt: new Date() })
}

/** Frees the space an upload held (terminated, refused, failed). */
export async function releaseReservation(em: EntityManager, uploadIds: readonly string[]): Promise<void> {
  if (!uploadIds.length) return
  await em.fork().nativeDelete(PendingUploadEntity, { name: { $in: uploadIds.map(reservationName) }, chunks: 0 })
}

/** What a tus upload is created with. */
export interface NewTusUpload {
  uploader: Uploader
  /** The directory of the token; null for the root. */
  directoryId: number | null
  uploadId: string
  /** Upload-Length. */
  length: number
}

/**
 * Reserves `length` bytes for a new tus upload: 412 when the file would be empty, 413
 * beyond `files.max_file_size`, 412 when the space left is smaller (checked exactly, under
 * the platform lock, like every upload). The reservation counts against both quotas until
 * the upload becomes a file (it is then the file's size), is terminated, or expires.
 */
export async function reserve(em: EntityManager, config: FilesConfig, input: NewTusUpload): Promise<void> {
  const { uploader, length } = input
  if (length === 0) throw invalid({ [LENGTH_FIELD]: 'the file is empty (0 bytes)' })
  if (config.max_file_size > 0 && length > config.max_file_size) {
    throw tooLarge(`The file is larger than ${config.max_file_size} bytes, the largest this server accepts.`)
  }
  await transaction(em.fork(), async (tx) => {
    await lockPlatform(tx, uploader.platformId)
    requireSpace(await spaceUsage(tx, uploader), length, LENGTH_FIELD)
    tx.create(PendingUploadEntity, {
      name: reservationName(input.uploadId),
      chunks: 0,
      pieces: [],
      pieceSizes: [],
      receivedBytes: length,
      user: tx.getReference('User', uploader.id) as never,
      platform: tx.getReference('Platform', uploader.platformId) as never,
      directory: input.directoryId === null ? null : tx.getReference(DirectoryEntity, input.directoryId),
      createdAt: new Date(),
      updatedAt: new Date(),
    })
    await tx.flush()
  })
}

/** The first bytes of a stored object, to tell its type. */
async function headOf(deps: FilesDeps, key: string): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of await deps.storage.read(key, { start: 0, end: SNIFF_BYTES - 1 })) {
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

/** Finishes under way in this process, by upload id: a retried last PATCH or a HEAD joins the one running. */
const finishing = new Map<string, Promise<FileView>>()

/**
 * Turns a complete tus upload into a file exactly like the other upload paths: its bytes
 * become a fresh `files/<hex>/source` object (a rename or a server-side copy, no second
 * upload), the type is sniffed from the first bytes, then `commitFile` checks the quotas
 * under the platform lock (the upload's own reservation aside), creates the row, frees the
 * reservation and announces `file.uploaded`. On failure nothing is kept: the bytes, the
 * upload and its reservation are removed (the client must start over). 410 when the
 * reservation is gone (directory or user deleted, expired). The file is counted in the
 * upload metrics once, from the upload's creation.
 */
export function finishTusUpload(
  deps: FilesDeps,
  em: EntityManager,
  port: ResumableUploadsPort,
  input: { uploader: Uploader; uploadId: string; name: string },
): Promise<FileView> {
  const running = finishing.get(input.uploadId)
  if (running) return running
  const promise = finish(deps, em, port, input).finally(() => finishing.delete(input.uploadId))
  finishing.set(input.uploadId, promise)
  return promise
}

async function finish(
  deps: FilesDeps,
  em: EntityManager,
  port: ResumableUploadsPort,
  input: { uploader: Uploader; uploadId: string; name: string },
): Promise<FileView> {
  const { config, metrics } = deps
  const { uploader, uploadId } = input
  const forget = async (): Promise<void> => {
    await port
      .remove(uploadId)
      .catch((error: unknown) => deps.log.warn({ err: error, uploadId }, 'tus upload not removed; the purge retries'))
    await releaseReservation(em, [uploadId])
  }
  const reservation = await reservationOf(em, uploadId, uploader.id)
  if (!reservation) {
    await forget()
    throw new HttpError(410, 'This upload no longer exists: it expired, or its directory or its user was deleted.')
  }
  const prefix = newPrefix()
  const key = `${prefix}source`
  // Like any upload, the prefix is guarded before bytes land there: a process killed before
  // the file row leaves them to the purge, not forever.
  const guard = await guardUpload(em, prefix, config.pending_ttl)
  let received: ReceivedBytes
  try {
    const { size } = await port.adopt(uploadId, key)
    received = { key, prefix, size, sniffed: sniff(await headOf(deps, key)), guard }
  } catch (error) {
    await discard(deps, em, { key, prefix, size: 0, sniffed: sniff(Buffer.alloc(0)), guard })
    await forget()
    throw error
  }
  let file: FileView
  try {
    file = await commitFile(deps, em, {
      uploader,
      directoryId: reservation.directory?.id ?? null,
      name: input.name,
      received,
      // Deleted with the file's creation, in its transaction; its bytes are not counted meanwhile.
      pending: { id: reservation.id, pieces: [] },
    })
  } catch (error) {
    // commitFile discarded the bytes; the reservation is still there (its transaction rolled back).
    await releaseReservation(em, [uploadId])
    throw error
  }
  // The reservation was made at the creation (the POST): the upload's start.
  metrics.uploaded('tus', file.size, reservation.createdAt.getTime())
  return file
}

/**
 * The purge step of tus uploads: removes those with no activity for `files.pending_ttl`
 * (finished ones that never became a file included) and their reservations. Nothing to do
 * without a `resumableUploads` provider.
 */
export function tusPurgeStep(deps: FilesDeps): PurgeStep {
  return async (now) => {
    const uploads = deps.resumableUploads
    if (!uploads) return 0
    const cutoff = new Date(now.getTime() - deps.config.pending_ttl * 1000)
    const removed = await uploads.expire(cutoff)
    await releaseReservation(deps.em(), removed)
    return removed.length
  }
}
