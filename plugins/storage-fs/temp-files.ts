import { randomBytes } from 'node:crypto'
import { lstat, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Name of the folder of partial writes under the storage root. `~` is not a key character,
 * so no key can name it and `list` never walks into it.
 */
export const TEMP_DIR = '~tmp'

/** A temporary file older than this was left by a crash (no write lasts a day). */
export const STALE_AFTER_MS = 24 * 60 * 60 * 1000

/** A fresh, unguessable path for one write's bytes inside `tempDir`. */
export function tempPath(tempDir: string): string {
  return join(tempDir, `${randomBytes(12).toString('hex')}.part`)
}

/**
 * Creates `tempDir` when missing and removes the files in it older than STALE_AFTER_MS;
 * resolves with how many it removed. Younger files may belong to writes in flight.
 */
export async function sweepTempDir(tempDir: string, now = Date.now()): Promise<number> {
  await mkdir(tempDir, { recursive: true })
  let swept = 0
  for (const name of await readdir(tempDir)) {
    const path = join(tempDir, name)
    const info = await lstat(path).catch(() => null)
    if (!info || now - info.mtimeMs < STALE_AFTER_MS) continue
    await rm(path, { recursive: true, force: true })
    swept += 1
  }
  return swept
}
