import type { HttpContext } from '../../src/kernel/index.js'
import type { StreamView } from './stream.queries.js'

/** The access-tree kind of streams (below media, or below another stream). */
export const STREAM_KIND = 'stream'

/** The reference of a stream in the access tree. */
export const streamRef = (stream: { id: number }) => ({ kind: STREAM_KIND, id: stream.id })

/** The checks of `StreamPaths.fromPath` on a stream already loaded. */
export async function requireOnStream(
  c: HttpContext,
  stream: StreamView,
  flag: string,
  within: boolean,
  name = stream.slug,
): Promise<void> {
  const hidden = await c.authz.isHidden(streamRef(stream))
  const describe = { name, kind: STREAM_KIND, hidden }
  if (within) await c.authz.requireWithin(c.principal, flag, streamRef(stream), describe)
  else await c.authz.require(c.principal, flag, streamRef(stream), describe)
}

/** Whether the caller may see a stream (as `StreamPaths.fromPath` decides), without throwing. */
export async function seesStream(c: HttpContext, stream: StreamView): Promise<boolean> {
  const flags = await c.authz.flagsOn(c.principal, streamRef(stream))
  if (flags === 'all') return true
  if (!flags.has(`${STREAM_KIND}.view`)) return false
  return flags.has(`${STREAM_KIND}.view_protected`) || !(await c.authz.isHidden(streamRef(stream)))
}
