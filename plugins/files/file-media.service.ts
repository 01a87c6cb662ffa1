import type { Emit, HttpContext } from '../../src/kernel/index.js'
import './files.events.js'
import type { FileMedia, FileView } from './files.types.js'

/**
 * What other plugins show of each file (thumbnail, subtitles), by file id: one `file.describe`
 * for a whole listing, so each plugin reads its rows for all the files at once.
 */
export async function describeFiles(
  emit: Emit,
  files: readonly FileView[],
  withToken: boolean,
): Promise<Map<number, FileMedia>> {
  const media = new Map<number, FileMedia>(files.map((file) => [file.id, { thumbnail: '', subtitles: [] }]))
  if (files.length) await emit('file.describe', { files, media, withToken })
  return media
}

/**
 * Whether the request asks for media URLs carrying a signed token: a `with-token` query
 * parameter other than `0` or `false` (the spec names the argument but not its form).
 */
export function wantsToken(c: HttpContext): boolean {
  const value = c.query()['with-token']
  if (value === undefined) return false
  const last = Array.isArray(value) ? value.at(-1) : value
  return typeof last === 'string' && !['0', 'false'].includes(last.trim().toLowerCase())
}
