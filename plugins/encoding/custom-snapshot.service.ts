import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { ByteCounter, type HttpContext, StorageLimitError, invalid, tooLarge } from '../../src/kernel/index.js'
import { type FileView, requireSpaceFor, spaceLeftFor } from '../files/index.js'
import type { EncodingConfig } from './encoding.config.js'
import type { EncodingDeps } from './encoding.deps.js'
import { encoderOf } from './encoding-run.js'
import { storeLocal } from './media-transfer.js'
import { storeCustomSnapshot } from './rendition.service.js'

/** The multipart field of a custom snapshot (the spec: a `file_upload` parameter). */
export const SNAPSHOT_FIELD = 'file_upload'

/** Seconds the encoder may take over one uploaded picture. */
const PICTURE_TIME_LIMIT_MS = 120_000

const NOT_A_PICTURE = 'is not a picture the encoder can read (JPEG, PNG, GIF, WebP, BMP, TIFF, ...)'

/**
 * Reads a `POST /file/<slug>/snapshots` body: the fields, and the `file_upload` part streamed
 * into `path` (capped by `encoding.max_snapshot_size`, 413, and by the space left to the
 * owner, 412). Whether a picture came.
 */
async function readBody(
  c: HttpContext,
  file: FileView,
  config: EncodingConfig,
  path: string,
): Promise<{ form: Record<string, unknown>; received: boolean }> {
  const user = { id: file.userId, platformId: file.platformId }
  const left = await spaceLeftFor(c.em, user)
  const cap = Math.min(left, config.max_snapshot_size)
  let received = false
  const form = await c.form(
    async (part) => {
      if (part.field !== SNAPSHOT_FIELD || received) {
        part.stream.resume()
        return
      }
      received = true
      try {
        await pipeline(part.stream, new ByteCounter(cap === Infinity ? undefined : cap), createWriteStream(path))
      } catch (error) {
        if (!(error instanceof StorageLimitError)) throw error
        if (config.max_snapshot_size <= left) {
          throw tooLarge(`The picture is larger than ${config.max_snapshot_size} bytes, the largest accepted.`)
        }
        await requireSpaceFor(c.em, user, cap + 1, SNAPSHOT_FIELD)
        throw error
      }
    },
    { maxFiles: 2 },
  )
  return { form, received }
}

/**
 * Stores an uploaded picture as the file's `custom` snapshot, selected: checked to be a
 * picture by the encoder (412 otherwise), normalized to a JPEG as the other snapshots, counted
 * in the quotas. Answers false when the body carried no picture (the caller reads `id`).
 */
export async function uploadCustomSnapshot(
  deps: EncodingDeps,
  c: HttpContext,
  file: FileView,
): Promise<{ received: false; form: Record<string, unknown> } | { received: true }> {
  const dir = join(deps.workRoot, `snapshot-${randomBytes(8).toString('hex')}`)
  await mkdir(dir, { recursive: true })
  try {
    const input = join(dir, 'upload')
    const body = await readBody(c, file, deps.config, input)
    if (!body.received) return { received: false, form: body.form }
    const encoder = encoderOf(deps)
    const signal = AbortSignal.timeout(PICTURE_TIME_LIMIT_MS)
    const probe = await encoder.probe(input, signal)
    if (probe.type !== 'image') throw invalid({ [SNAPSHOT_FIELD]: NOT_A_PICTURE })
    const outputDir = join(dir, 'out')
    await mkdir(outputDir)
    const outputs = await encoder
      .encode({ input, outputDir, probe, signal, onProgress: () => undefined })
      .catch(() => Promise.reject(invalid({ [SNAPSHOT_FIELD]: NOT_A_PICTURE })))
    const picture = outputs.find((output) => output.kind === 'image') ?? outputs.find((o) => o.kind === 'thumbnail')
    if (!picture) throw invalid({ [SNAPSHOT_FIELD]: NOT_A_PICTURE })
    const storage = deps.storage
    const key = `${file.storagePrefix}custom/${randomBytes(8).toString('hex')}.jpg`
    const size = await storeLocal(storage, join(outputDir, picture.path), key)
    let replaced: string | undefined
    try {
      replaced = await storeCustomSnapshot(
        c.em,
        file.id,
        { storageKey: key, size, mimeType: picture.mimeType, width: picture.width, height: picture.height },
        SNAPSHOT_FIELD,
      )
    } catch (error) {
      await storage.delete(key)
      throw error
    }
    if (replaced) {
      await storage.delete(replaced).catch((error: unknown) => c.log.warn({ err: error }, 'old custom snapshot kept'))
    }
    return { received: true }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
