import { type HttpContext, type ProcessCache, notFound, serviceKey } from '../../src/kernel/index.js'
import { requireOnStream } from './stream.lookup.js'
import { type StreamView, streamQueries } from './stream.queries.js'

/** Which path parameter names the stream (default `stream`), and whether the flag acts on what it holds. */
export interface StreamPathOptions {
  param?: string
  /** `flag` is an action on what the stream holds (`resource.create`). */
  within?: boolean
}

/** The streams named by request paths (`STREAM_PATHS`), for the routes of streams and of what they hold. */
export interface StreamPaths {
  /**
   * The stream named by a path parameter, once the caller may do `flag` on it: 404 when they
   * may not see it (`stream.view`, and `stream.view_protected` when it or a stream above it is
   * hidden or draft), 403 when they see it but may not do that.
   */
  fromPath(c: HttpContext, flag: string, options?: StreamPathOptions): Promise<StreamView>
}

/** The streams plugin's lookup of streams by path, for the plugins whose routes act on a stream (resources). */
export const STREAM_PATHS = serviceKey<StreamPaths>('streams.paths')

/**
 * Streams kept by slug in `cache` until a stream or a media changes (a stream's view names
 * its media): every request on a stream or on its resources starts with this lookup, the
 * check that follows reads the kept parents and visibility. A slug that names no stream is
 * kept as such (null) until a stream is created.
 */
export function streamPaths(cache: ProcessCache<StreamView | null>): StreamPaths {
  return {
    async fromPath(c, flag, options = {}) {
      const slug = c.param(options.param ?? 'stream')
      const stream = await cache.get(slug, async () => (await streamQueries.bySlug(c.reader, slug)) ?? null)
      if (!stream) throw notFound(`No stream "${slug}".`)
      await requireOnStream(c, stream, flag, options.within ?? false, slug)
      return stream
    },
  }
}
