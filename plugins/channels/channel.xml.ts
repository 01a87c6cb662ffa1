import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import type { ChannelTypes } from './channel-type.registry.js'
import type { ChannelView } from './channel.queries.js'
import { FEED_CHANNEL_TYPE, feedUrl } from './feed.url.js'

const href = (links: LinkBuilder, ch: ChannelView): string => links.url('media', ch.mediaSlug, 'channel', ch.slug)

// Theme and skin are shown for themed types (web) only (spec: "theme and skin for web"). Syndication
// channels show where their feed is, online or not: the address never changes, and `is_online` says
// whether it answers.
function fields(links: LinkBuilder, ch: ChannelView, types: ChannelTypes): XmlNode[] {
  const nodes = [xml.str('slug', ch.slug), xml.str('name', ch.name), xml.str('type', ch.type)]
  nodes.push(xml.bool('is_online', ch.isOnline))
  if (types.themed(ch.type)) nodes.push(xml.str('theme', ch.theme), xml.str('skin', ch.skin))
  if (ch.type === FEED_CHANNEL_TYPE) nodes.push(xml.link('feed', feedUrl(links, ch.mediaSlug, ch.slug)))
  return nodes
}

/**
 * A channel in a list: href, slug, name, type, is_online, theme and skin for themed types, and
 * the `feed` link for syndication channels.
 */
export const channelSummaryXml = (links: LinkBuilder, ch: ChannelView, types: ChannelTypes): XmlNode =>
  xml.el('channel', { href: href(links, ch) }, fields(links, ch, types))

/** Channel info (also the create and update answers): the list fields and the media link. */
export const channelInfoXml = (links: LinkBuilder, ch: ChannelView, types: ChannelTypes): XmlNode =>
  xml.el('channel', { href: href(links, ch) }, [
    ...fields(links, ch, types),
    xml.link('media', links.url('media', ch.mediaSlug)),
  ])

/** `GET /media/<slug>/channels`: `channels` of `channel`. */
export const channelListXml = (
  links: LinkBuilder,
  mediaSlug: string,
  items: ChannelView[],
  types: ChannelTypes,
): XmlNode =>
  xml.el(
    'channels',
    { href: links.url('media', mediaSlug, 'channels') },
    items.map((ch) => channelSummaryXml(links, ch, types)),
  )
