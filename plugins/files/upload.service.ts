import type { FilesDeps } from './files.deps.js'
import { randomBytes } from 'node:crypto'
import { type Readable, Transform, type TransformCallback, pipeline } from 'node:stream'
import {
  type EntityManager,
  StorageLimitError,
  freeSlug,
  invalid,
  retryOnConflict,
  tooLarge,
  transaction,
} from '../../src/kernel/index.js'
import { lockPlatform } from '../platforms/index.js'
import { SNIFF_BYTES, type Sniffed, sniff } from './content-type.js'
import { DirectoryEntity } from './directory.entity.js'
import { fileQueries } from './file.queries.js'
import './files.events.js'
import type { FileView, Uploader } from './files.types.js'
import { overQuota, requireSpace, spaceLeft, spaceUsage } from './space.service.js'
import { StoredFileEntity } from './stored-file.entity.js'
import { emptyTrash, guardUpload, releaseGuard, trash } from './trash.service.js'
import { PendingUploadEntity } from './pending-upload.entity.js'

/** Bytes streamed into storage under a fresh key, before any row points at them. */
export interface ReceivedBytes {
  key: string
  /** Everything of the future file lives under it. */
  prefix: string
  size: number
  sniffed: Sniffed
  /** The trash row guarding the prefix until a row records the bytes (see `guardUpload`). */
  guard?: number
}

/** The request field an upload's 412 and 413 answers name. */
export const FILE_FIELD = 'path'

/** Keeps the first bytes going through, to tell the file type without a second read. */
class Head extends Transform {
  private readonly chunks: Buffer[] = []
  private length = 0

  get bytes(): Buffer {
    return Buffer.concat(this.chunks)
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.length < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.length)
      this.chunks.push(Buffer.from(part))
      this.length += part.length
    }
    callback(null, chunk)
  }
}

/** A fresh storage prefix for one file (or one piece of a chunked upload): `files/<random>/`. */
export const newPrefix = (): string => `files/${randomBytes(12).toString('hex')}/`

/**
 * Streams `source` into storage under a fresh key, stopping as soon as it goes over the
 * space left to the uploader or `files.max_file_size`: then nothing is kept and the answer
 * is 412 (quota) or 413 (size). The quota is checked again, exactly, when the file row is
 * committed (`commitFile`): concurrent uploads may each fit here and not together.
 */
export async function receiveBytes(
  deps: FilesDeps,
  em: EntityManager,
  uploader: Uploader,
  source: Readable,
): Promise<ReceivedBytes> {
  const { config } = deps
  const usage = await spaceUsage(em.fork(), uploader)
  const left = spaceLeft(usage)
  const sizeCap = config.max_file_size > 0 ? config.max_file_size : Infinity
  const cap = Math.min(left, sizeCap)
  const prefix = newPrefix()
  const key = `${prefix}source`
  // pipeline, not pipe: when the source fails (the client gone) before the storage reads
  // `head`, `head` fails too, with its error handled (an unhandled 'error' would crash the
  // process), and the write then rejects instead of waiting for bytes that never come.
  const head = pipeline(source, new Head(), () => undefined)
  const guard = await guardUpload(em, prefix, config.pending_ttl)
  try {
    const { size } = await deps.storage.write(key, head, cap === Infinity ? {} : { maxBytes: cap })
    return { key, prefix, size, sniffed: sniff(head.bytes), guard }
  } catch (error) {
    // The backend kept nothing of a failed write.
    await releaseGuard(em.fork(), guard)
    if (!(error instanceof StorageLimitError)) throw error
    if (sizeCap <= left) throw tooLarge(`The file is larger than ${sizeCap} bytes, the largest this server accepts.`)
    throw overQuota(usage, FILE_FIELD)
  }
}

/** Removes received bytes that will not become a file (refused, failed, replaced). */
export async function discard(deps: FilesDeps, em: EntityManager, received: ReceivedBytes | undefined): Promise<void> {
  if (!received) return
  try {
    await deps.storage.delete(received.key)
    await releaseGuard(em.fork(), received.guard)
  } catch (error) {
    // The guard stays: the purge job removes the bytes once it is due.
    deps.log.warn({ err: error, key: received.key }, 'received bytes not removed yet')
  }
}

/** Where a new file goes and what it is called. */
export interface NewFile {
  uploader: Uploader
  /** A directory of the uploader, or null for the root. */
  directoryId: number | null
  /** Already made harmless (`safeFileName`). */
  name: string
  received: ReceivedBytes
  /** The chunked upload this file completes: its row and its pieces go in the same transaction. */
  pending?: { id: number; pieces: readonly string[] }
}

/**
 * Creates the file row for received bytes, `pending`, in one transaction that locks the
 * platform row and checks both quotas exactly (so concurrent uploads never overshoot),
 * then announces `file.uploaded`. 412 when the file no longer fits; a 0-byte file is
 * refused (412): there is nothing to encode or publish. The bytes are discarded on failure.
 */
export async function commitFile(deps: FilesDeps, em: EntityManager, input: NewFile): Promise<FileView> {
  const { uploader, received } = input
  let id: number
  try {
    if (received.size === 0) throw invalid({ [FILE_FIELD]: 'the file is empty (0 bytes)' })
    id = await retryOnConflict(() =>
      transaction(em, async (tx) => {
        const platform = await lockPlatform(tx, uploader.platformId)
        requireSpace(await spaceUsage(tx, uploader, input.pending?.id), received.size, FILE_FIELD)
        const directory = input.directoryId === null ? null : tx.getReference(DirectoryEntity, input.directoryId)
        await releaseGuard(tx, received.guard)
        if (input.pending) {
          await tx.nativeDelete(PendingUploadEntity, { id: input.pending.id })
          trash(tx, input.pending.pieces)
        }
        const file = tx.create(StoredFileEntity, {
          slug: await freeSlug(tx, StoredFileEntity, input.name),
          name: input.name,
          size: received.size,
          storedBytes: received.size,
          type: received.sniffed.type,
          mimeType: received.sniffed.mimeType,
          encodingStatus: 0,
          encodingProgress: 0,
          encodingError: null,
          storageKey: received.key,
          storagePrefix: received.prefix,
          metadata: {},
          user: tx.getReference('User', uploader.id) as never,
          platform,
          directory,
          createdAt: new Date(),
          updatedAt: new Date(),
        })
        await tx.flush()
        await deps.emit('file.uploaded', {
          em: tx,
          file: {
            id: file.id,
            slug: file.slug,
            name: file.name,
            platformId: platform.id,
            type: file.type,
            size: file.size,
          },
        })
        return file.id
      }),
    )
  } catch (error) {
    await discard(deps, em, received)
    throw error
  }
  if (input.pending) await emptyTrash(deps, em)
  const file = (await fileQueries.fileById(deps.reader, id))!
  // The answer describes the file as created (the spec's upload answer shows 0, pending):
  // its encoding was queued in the same transaction, and the status poll follows it from there.
  return { ...file, encodingStatus: 'pending', encodingProgress: 0, encodingRetry: null }
}
