import { type HttpContext, notFound } from '../../src/kernel/index.js'
import type { MediaView } from '../media/index.js'
import { type ChannelView, channelQueries } from './channel.queries.js'

/**
 * The channel named by the `:channel` path parameter, among the channels of `media` (already
 * checked by `mediaFromPath`): 404 when it does not exist or belongs to another media.
 */
export async function channelFromPath(c: HttpContext, media: MediaView): Promise<ChannelView> {
  const slug = c.param('channel')
  const channel = await channelQueries.bySlug(c.reader, media.id, slug)
  if (!channel) throw notFound(`No channel "${slug}" in media "${media.slug}".`)
  return channel
}
