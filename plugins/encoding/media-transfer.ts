import { createReadStream, createWriteStream } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { extname, join, relative, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { type StoragePort, isStorageKey } from '../../src/kernel/index.js'

/** Media types of the files the pipeline stores, by extension. */
const TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.mp3': 'audio/mpeg',
  '.aac': 'audio/aac',
  '.jpg': 'image/jpeg',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.m4s': 'video/iso.segment',
  '.vtt': 'text/vtt; charset=utf-8',
}

/** The media type of a stored media file from its name (`application/octet-stream` when unknown). */
export const typeOf = (name: string): string => TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream'

/** A file the encoder wrote has a name storage refuses: the run fails rather than store it under another. */
export class UnstorableNameError extends Error {
  override name = 'UnstorableNameError'
}

/** Copies a stored object into a local file (the encoder reads local files only). */
export async function copyToLocal(storage: StoragePort, key: string, path: string, signal: AbortSignal): Promise<void> {
  await pipeline(await storage.read(key), createWriteStream(path), { signal })
}

/** Stores a local file under `key`; its size. */
export async function storeLocal(storage: StoragePort, path: string, key: string): Promise<number> {
  if (!isStorageKey(key)) throw new UnstorableNameError(`"${key}" is not a storage key`)
  const { size } = await storage.write(key, createReadStream(path), { contentType: typeOf(path) })
  return size
}

/** Every file below a local folder, as paths relative to it with `/` separators, sorted. */
export async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()
}

/** Bytes of every file below a local folder (or of one file). */
export async function localSize(path: string): Promise<number> {
  const info = await stat(path)
  if (!info.isDirectory()) return info.size
  let total = 0
  for (const file of await filesBelow(path)) total += (await stat(join(path, file))).size
  return total
}

/** Stores every file below a local folder under `prefix` (ending with `/`), keeping the relative paths; the bytes stored. */
export async function storeFolder(
  storage: StoragePort,
  dir: string,
  prefix: string,
  signal: AbortSignal,
): Promise<number> {
  let total = 0
  for (const file of await filesBelow(dir)) {
    signal.throwIfAborted()
    total += await storeLocal(storage, join(dir, file), `${prefix}${file}`)
  }
  return total
}

/** Removes the stored objects under `prefix` that `keep` does not want; how many. */
export async function removeObjects(
  storage: StoragePort,
  prefix: string,
  keep: (key: string) => boolean = () => false,
): Promise<number> {
  const doomed: string[] = []
  // Listed first, removed after: some backends list lazily, page by page.
  for await (const key of storage.list(prefix)) if (!keep(key)) doomed.push(key)
  for (const key of doomed) await storage.delete(key)
  return doomed.length
}
