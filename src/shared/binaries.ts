import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'

export interface Binary {
  /** Absolute path or command name. */
  path: string
  /** Where it came from: the environment variable, PATH, or the npm-bundled copy. */
  source: 'env' | 'path' | 'bundled'
}

const require = createRequire(import.meta.url)

function onPath(name: string): boolean {
  try {
    execFileSync(name, ['-version'], { stdio: 'ignore', timeout: 10_000 })
    return true
  } catch {
    return false
  }
}

/**
 * Finds ffmpeg or ffprobe: `FFMPEG_PATH` / `FFPROBE_PATH`, else the one on PATH, else the
 * binary bundled by the npm installer package. Null when none is usable.
 */
export function findMediaBinary(name: 'ffmpeg' | 'ffprobe', env: NodeJS.ProcessEnv = process.env): Binary | null {
  const fromEnv = env[name === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH']
  if (fromEnv) return { path: fromEnv, source: 'env' }
  if (onPath(name)) return { path: name, source: 'path' }
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
