import { PassThrough, type Readable } from 'node:stream'
import { type EntityManager, invalid, tooLarge, transaction } from '../../src/kernel/index.js'
import { lockPlatform } from '../platforms/index.js'
import { SNIFF_BYTES, sniff } from './content-type.js'
import { DirectoryEntity } from './directory.entity.js'
import type { FileView } from './files.types.js'
import { type PendingUpload, PendingUploadEntity } from './pending-upload.entity.js'
import { requireSpace, spaceUsage } from './space.service.js'
import { emptyTrash, guardUpload, releaseGuard, trash } from './trash.service.js'
import type { Uploader } from './files.types.js'
import { type ReceivedBytes, commitFile, discard, newPrefix } from './upload.service.js'
import type { FilesDeps } from './files.deps.js'

/** `chunk` and `chunks` of a request: this piece's index (0-based) and how many there are. */
export interface Piece {
  chunk: number
  chunks: number
}

/**
 * The answer to a piece: the progress so far (JSON), or the finished file (XML) and when its
 * upload started (epoch ms: when its first piece started to arrive).
 */
export type PieceOutcome =
  | { done: false; progress: { chunk: number; chunks: number; bytes: number } }
  | { done: true; file: FileView; startedAt: number }

/**
 * Reads `chunk` and `chunks` from a form: both or neither; whole numbers with
 * 0 <= chunk < chunks <= max. 412 naming each wrong field.
 */
export function readPiece(fields: Record<string, unknown>, maxChunks: number): Piece | undefined {
  const chunk = fields.chunk
  const chunks = fields.chunks
  if (chunk === undefined && chunks === undefined) return undefined
  const errors: Record<string, string> = {}
  const whole = (value: unknown): number | undefined =>
    typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : undefined
  const parsed = whole(chunks)
  // Only a valid count bounds chunk: `chunks=0` is one error, not also "less than chunks (0)".
  const count = parsed !== undefined && parsed >= 1 && parsed <= maxChunks ? parsed : undefined
  const index = whole(chunk)
  if (chunks === undefined) errors.chunks = 'is required with chunk: send the number of pieces'
  else if (count === undefined) errors.chunks = `must be a whole number from 1 to ${maxChunks}`
  if (chunk === undefined) errors.chunk = 'is required with chunks: send the index of this piece, from 0'
  else if (index === undefined) errors.chunk = 'must be a whole number from 0'
  else if (count !== undefined && index >= count)
    errors.chunk = `must be less than chunks (${count}): pieces count from 0`
  if (Object.keys(errors).length) throw invalid(errors)
  return { chunk: index!, chunks: count! }
}

/** The pieces of a pending upload, one after the other, as one stream. */
function concatenate(deps: FilesDeps, keys: readonly string[]): Readable {
  const out = new PassThrough()
  const storage = deps.storage
  void (async () => {
    for (const key of keys) {
      const piece = await storage.read(key)
      for await (const chunk of piece) {
        if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve))
      }
    }
    out.end()
  })().catch((error: unknown) => out.destroy(error as Error))
  return out
}

/**
 * Files one piece of a chunked upload (API-DECISIONS: Files and encoding). There is one
 * pending upload per user and name. The next piece is appended; a piece already received
 * is replaced; piece 0 with another `chunks` starts the upload over; a piece beyond the next
 * is refused (412) and what was received stays. The last piece turns the pieces into one
 * file (streamed: pieces are read back one by one), committed like any upload.
 */
export async function receivePiece(
  deps: FilesDeps,
  em: EntityManager,
  input: {
    uploader: Uploader
    name: string
    directoryId: number | null
    piece: Piece
    received: ReceivedBytes
    /** When this piece's request started to be read (epoch ms): a new upload's start. */
    startedAt: number
    /** How long the assembled object is guarded before it is recorded (`files.pending_ttl`). */
    guardSeconds: number
    /** `files.max_file_size` (Infinity: none): it bounds the whole file, not only each piece (413). */
    maxBytes: number
  },
): Promise<PieceOutcome> {
  const { uploader, piece, received } = input
  let pending: PendingUpload
  try {
    pending = await transaction(em, async (tx) => {
      await lockPlatform(tx, uploader.platformId)
      let row = await tx.findOne(PendingUploadEntity, { user: uploader.id, name: input.name })
      if (row && piece.chunk === 0 && row.chunks !== piece.chunks) {
        trash(tx, row.pieces)
        tx.remove(row)
        await tx.flush()
        row = null
      }
      if (!row) {
        if (piece.chunk !== 0) {
          throw invalid({ chunk: `no upload of "${input.name}" is under way: start with piece 0` })
        }
        row = tx.create(PendingUploadEntity, {
          name: input.name,
          chunks: piece.chunks,
          pieces: [],
          pieceSizes: [],
          receivedBytes: 0,
          user: tx.getReference('User', uploader.id) as never,
          platform: tx.getReference('Platform', uploader.platformId) as never,
          directory: input.directoryId === null ? null : tx.getReference(DirectoryEntity, input.directoryId),
          // When its first piece started to arrive: the upload's duration counts from there.
          createdAt: new Date(input.startedAt),
          updatedAt: new Date(),
        })
      }
      if (row.chunks !== piece.chunks) {
        throw invalid({ chunks: `this upload was started with ${row.chunks} pieces` })
      }
      if (piece.chunk > row.pieces.length) {
        throw invalid({ chunk: `piece ${row.pieces.length} is expected next (pieces go in order)` })
      }
      const replaced = row.pieces[piece.chunk]
      const usage = await spaceUsage(tx, uploader, row.id)
      const others = row.receivedBytes - (row.pieceSizes[piece.chunk] ?? 0)
      if (others + received.size > input.maxBytes) {
        throw tooLarge(`The file is larger than ${input.maxBytes} bytes, the largest this server accepts.`)
      }
      requireSpace(usage, others + received.size, 'chunk')
      const pieces = [...row.pieces]
      const sizes = [...row.pieceSizes]
      pieces[piece.chunk] = received.key
      sizes[piece.chunk] = received.size
      row.pieces = pieces
      row.pieceSizes = sizes
      row.receivedBytes = others + received.size
      row.updatedAt = new Date()
      if (replaced) trash(tx, [replaced])
      // The pending upload records the piece now.
      await releaseGuard(tx, received.guard)
      await tx.flush()
      return row
    })
  } catch (error) {
    await discard(deps, em, received)
    throw error
  }
  await emptyTrash(deps, em)
  const complete = pending.pieces.length === pending.chunks && piece.chunk === pending.chunks - 1
  if (!complete) {
    return { done: false, progress: { chunk: piece.chunk, chunks: pending.chunks, bytes: pending.receivedBytes } }
  }
  const file = await assemble(deps, em, uploader, pending, input.guardSeconds)
  return { done: true, file, startedAt: pending.createdAt.getTime() }
}

/** Streams the pieces into one stored object and commits it as the file; the pieces go to the trash. */
async function assemble(
  deps: FilesDeps,
  em: EntityManager,
  uploader: Uploader,
  pending: PendingUpload,
  guardSeconds: number,
): Promise<FileView> {
  const prefix = newPrefix()
  const key = `${prefix}source`
  const storage = deps.storage
  const guard = await guardUpload(em, prefix, guardSeconds)
  const { size } = await storage.write(key, concatenate(deps, pending.pieces))
  const head = await storage.read(key, { start: 0, end: SNIFF_BYTES - 1 })
  const chunks: Buffer[] = []
  for await (const chunk of head) chunks.push(chunk as Buffer)
  return commitFile(deps, em, {
    uploader,
    directoryId: pending.directory?.id ?? null,
    name: pending.name,
    received: { key, prefix, size, sniffed: sniff(Buffer.concat(chunks)), guard },
    pending: { id: pending.id, pieces: pending.pieces },
  })
}
