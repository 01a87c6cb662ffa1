import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** What a run leaves: its result, and the entries of its work folder to move into place. */
export interface WorkResult<T> {
  result: T
  /** Names of files or folders directly in the work folder. */
  entries: string[]
}

/**
 * Runs `work` in a fresh hidden folder inside `parent`, then moves the entries it names
 * into `parent`. Until then nothing of the run is visible in `parent`; whatever happens, the
 * work folder is removed, and on failure so are the entries already moved: a failed or
 * aborted run leaves `parent` as it found it. Same filesystem, so the moves are renames.
 */
export async function inWorkFolder<T>(parent: string, work: (dir: string) => Promise<WorkResult<T>>): Promise<T> {
  await mkdir(parent, { recursive: true })
  const dir = await mkdtemp(join(parent, '.encoder-'))
  const moved: string[] = []
  try {
    const { result, entries } = await work(dir)
    for (const entry of entries) {
      await rename(join(dir, entry), join(parent, entry))
      moved.push(entry)
    }
    return result
  } catch (error) {
    await Promise.all(moved.map((entry) => rm(join(parent, entry), { recursive: true, force: true })))
    throw error
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
