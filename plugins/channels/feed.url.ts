import type { LinkBuilder } from '../../src/kernel/index.js'

/** The channel type whose channels publish a feed. */
export const FEED_CHANNEL_TYPE = 'syndication'

/** The last segment of a feed's address: the extension tells browsers and feed readers what it is. */
export const FEED_FILE = 'feed.rss'

/** The public address of a syndication channel's feed: `/media/<media>/channel/<channel>/feed.rss`. */
export const feedUrl = (links: LinkBuilder, mediaSlug: string, channelSlug: string): string =>
  links.url('media', mediaSlug, 'channel', channelSlug, FEED_FILE)
