import { type HttpContext, notFound } from '../../src/kernel/index.js'
import { type StreamView, streamQueries } from './stream.queries.js'

/** The access-tree kind of streams (below media, or below another stream). */
export const STREAM_KIND = 'stream'

/** The reference of a stream in the access tree. */
export const streamRef = (stream: { id: number }) => ({ kind: STREAM_KIND, id: stream.id })

/**
 * The stream named by a path parameter (default `:stream`), once the caller may do `flag` on
 * it: 404 when they may not see it (`stream.view`, and `stream.view_protected` when it or a
 * stream above it is hidden or draft), 403 when they see it but may not do that. `within`:
 * `flag` is an action on what the stream holds (`resource.create`).
 */
export async function streamFromPath(
  c: HttpContext,
  flag: string,
  options: { param?: string; within?: boolean } = {},
): Promise<StreamView> {
  const slug = c.param(options.param ?? 'stream')
  const stream = await streamQueries.bySlug(c.reader, slug)
  if (!stream) throw notFound(`No stream "${slug}".`)
  await requireOnStream(c, stream, flag, options.within ?? false, slug)
  return stream
}

/** The checks of `streamFromPath` on a stream already loaded. */
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

/** Whether the caller may see a stream (as `streamFromPath` decides), without throwing. */
export async function seesStream(c: HttpContext, stream: StreamView): Promise<boolean> {
  const flags = await c.authz.flagsOn(c.principal, streamRef(stream))
  if (flags === 'all') return true
  if (!flags.has(`${STREAM_KIND}.view`)) return false
  return flags.has(`${STREAM_KIND}.view_protected`) || !(await c.authz.isHidden(streamRef(stream)))
}
