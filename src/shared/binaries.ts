import { execFileSync } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, join } from 'node:path'

export interface Binary {
  /** Absolute path or command name. */
  path: string
  /** Where it came from: the environment variable, PATH, or the npm-bundled copy. */
  source: 'env' | 'path' | 'bundled'
}

const require = createRequire(import.meta.url)

/**
 * The executable file `name` in a folder of this process's PATH, as the shell would find it.
 * Looked up, not run: every boot and CLI command asks, and running `ffmpeg -version` and
 * `ffprobe -version` cost 200 ms there (`mediactl doctor` runs them, to show the version).
 */
function onPath(name: string): string | null {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (!folder) continue
    const candidate = join(folder, name)
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // Not here: the next folder.
    }
  }
  return null
}

/**
 * Finds ffmpeg or ffprobe: `FFMPEG_PATH` / `FFPROBE_PATH`, else the one on PATH, else the
 * binary bundled by the npm installer package. Null when none is usable.
 */
export function findMediaBinary(name: 'ffmpeg' | 'ffprobe', env: NodeJS.ProcessEnv = process.env): Binary | null {
  const fromEnv = env[name === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH']
  if (fromEnv) return { path: fromEnv, source: 'env' }
  const found = onPath(name)
  if (found) return { path: found, source: 'path' }
  try {
    const bundled = (
      require(name === 'ffmpeg' ? '@ffmpeg-installer/ffmpeg' : '@ffprobe-installer/ffprobe') as { path: string }
    ).path
    return { path: bundled, source: 'bundled' }
  } catch {
    return null
  }
}

/** The first line of `<binary> -version`, or null when it does not run. */
export function binaryVersion(path: string): string | null {
  try {
    return execFileSync(path, ['-version'], { encoding: 'utf8', timeout: 10_000 }).split('\n')[0] ?? null
  } catch {
    return null
  }
}
