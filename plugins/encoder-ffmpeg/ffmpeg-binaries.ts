import { accessSync, constants } from 'node:fs'
import { dirname } from 'node:path'
import { findMediaBinary } from '../../src/shared/binaries.js'

/** One binary and what its processes need in their environment. */
export interface MediaBinary {
  /** Absolute path or command name. */
  path: string
  /** Variables set for its processes, over this process's environment. */
  env: Record<string, string>
}

/** Where ffmpeg and ffprobe are. */
export interface Binaries {
  ffmpeg: MediaBinary
  ffprobe: MediaBinary
}

/** Where to point the operator when a binary is missing. */
const FIX = 'install ffmpeg (for example "apt-get install ffmpeg") or set FFMPEG_PATH and FFPROBE_PATH'

function binary(name: 'ffmpeg' | 'ffprobe', env: NodeJS.ProcessEnv): MediaBinary {
  const found = findMediaBinary(name, env)
  if (!found) throw new Error(`encoder-ffmpeg: no ${name} found: ${FIX}`)
  // One found on PATH is an executable file already; a configured or bundled path is checked
  // the same way, never run, which costs nothing at each CLI start (`mediactl doctor` runs it
  // and shows its version). A bare command name (`FFMPEG_PATH=ffmpeg`) is looked up on PATH
  // when run.
  const command = found.source === 'path' || (found.source === 'env' && !found.path.includes('/'))
  if (!command) {
    try {
      accessSync(found.path, constants.X_OK)
    } catch {
      const from = found.source === 'env' ? `${name.toUpperCase()}_PATH` : 'the npm-bundled copy'
      throw new Error(`encoder-ffmpeg: ${name} at ${found.path} (${from}) is not an executable file: ${FIX}`)
    }
  }
  // The npm-bundled binaries are static builds: their glibc loads the host's character set
  // modules (iconv, for the names in MPEG-TS service tables) and crashes when the host's glibc
  // differs. Pointed at a folder without modules, iconv fails cleanly and names stay as bytes.
  return { path: found.path, env: found.source === 'bundled' ? { GCONV_PATH: dirname(found.path) } : {} }
}

/** ffmpeg and ffprobe, or an error that says how to get them. */
export function findBinaries(env: NodeJS.ProcessEnv = process.env): Binaries {
  return { ffmpeg: binary('ffmpeg', env), ffprobe: binary('ffprobe', env) }
}
