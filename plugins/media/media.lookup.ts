import { type HttpContext, notFound } from '../../src/kernel/index.js'
import { type MediaView, mediaQueries } from './media.queries.js'

/** The access-tree kind of media (below platforms). */
export const MEDIA_KIND = 'media'

/** The reference of a media in the access tree. */
export const mediaRef = (media: { id: number }) => ({ kind: MEDIA_KIND, id: media.id })

/**
 * The media named by a path parameter (default `:media`), once the caller may do `flag` on
 * it: 404 when they may not see it (`media.view`), 403 when they see it but may not do that.
 * `within`: `flag` is an action on what the media holds (`stream.create`), checked with
 * `requireWithin`.
 */
export async function mediaFromPath(
  c: HttpContext,
  flag: string,
  options: { param?: string; within?: boolean } = {},
): Promise<MediaView> {
  const slug = c.param(options.param ?? 'media')
  const media = await mediaQueries.bySlug(c.reader, slug)
  if (!media) throw notFound(`No media "${slug}".`)
  if (options.within) await c.authz.requireWithin(c.principal, flag, mediaRef(media), { name: slug })
  else await c.authz.require(c.principal, flag, mediaRef(media), { name: slug })
  return media
}
