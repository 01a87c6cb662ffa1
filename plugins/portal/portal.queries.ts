import type { Reader } from '../../src/kernel/index.js'
import { channelQueries } from '../channels/index.js'
import { type MediaView, mediaQueries } from '../media/index.js'
import { type ResourceView, resourceQueries } from '../resources/index.js'
import { streamQueries } from '../streams/index.js'
import { StreamTree } from './stream-tree.js'

/** Only what everyone may see: visible resources, visible streams with visible ancestors. */
const PUBLIC = { scope: 'all', withHidden: false } as const

/** A page of a list, newest first. */
export interface Newest<T> {
  items: T[]
  total: number
}

/** The reads of the portal, all limited to public content. */
export const portalQueries = {
  /** The media of a slug with its online web channel (the oldest one, should there be several), or undefined. */
  async portal(
    reader: Reader,
    slug: string,
    maxChannels: number,
  ): Promise<{ media: MediaView; theme: string | null; skin: string | null } | undefined> {
    const media = await mediaQueries.bySlug(reader, slug)
    if (!media) return undefined
    const channels = await channelQueries.page(reader, media.id, 0, maxChannels)
    const web = channels.find((channel) => channel.type === 'web' && channel.isOnline)
    return web && { media, theme: web.theme, skin: web.skin }
  },

  /** A resource by slug, whatever its media or visibility (the page checks both). */
  resource(reader: Reader, slug: string): Promise<ResourceView | undefined> {
    return resourceQueries.bySlug(reader, slug)
  },

  /** The media's visible streams as a tree (at most `max`, oldest first). */
  async streams(reader: Reader, mediaId: number, max: number): Promise<StreamTree> {
    return new StreamTree(await streamQueries.page(reader, mediaId, PUBLIC, 0, max))
  },

  /**
   * Page `page` (1-based, `size` each) of a stream's visible resources, newest first; a page
   * past the end is empty. Lists are kept in id order by the resources plugin, so the newest
   * are read from the end.
   */
  async newest(reader: Reader, streamId: number, page: number, size: number): Promise<Newest<ResourceView>> {
    const total = await resourceQueries.count(reader, streamId, PUBLIC)
    const end = total - (page - 1) * size
    if (end <= 0) return { items: [], total }
    const offset = Math.max(0, end - size)
    const items = await resourceQueries.page(reader, streamId, PUBLIC, offset, end - offset)
    return { items: items.reverse(), total }
  },
}
