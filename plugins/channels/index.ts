import { definePlugin } from '../../src/kernel/index.js'
import '../media/index.js'
import { apiChannelType } from './api.channel-type.js'
import { ChannelTypeRegistry } from './channel-type.registry.js'
import { CHANNEL_OFFERS, channelOffers } from './channel.offer.js'
import { ChannelEntity } from './channel.entity.js'
import { channelRoutes } from './channel.routes.js'
import { deleteChannelsOf, seedChannels } from './channel.service.js'
import type { ChannelType } from './channel.types.js'
import type { ChannelsDeps } from './channels.deps.js'
import './channels.events.js'
import init from './migrations/20261208-channels-init.js'
import watch from './migrations/20270127-channels-watch.js'
import { syndicationChannelType } from './syndication.channel-type.js'
import { webChannelType } from './web.channel-type.js'
import { widgetChannelType } from './widget.channel-type.js'

export { type Channel, ChannelEntity } from './channel.entity.js'
export { type ChannelView, channelQueries } from './channel.queries.js'
export { type ChannelType, type FlavorChoice } from './channel.types.js'
export { CHANNEL_OFFERS, type ChannelOffer, type ChannelOffers } from './channel.offer.js'
export { ChannelTypes } from './channel-type.registry.js'
export { DEFAULT_CHANNELS } from './channel.service.js'
export { FEED_CHANNEL_TYPE, FEED_FILE, feedUrl } from './feed.url.js'
export { apiChannelType, syndicationChannelType, webChannelType, widgetChannelType }

/** The channel types every installation has, in this order. */
export const BUILT_IN_CHANNEL_TYPES: readonly ChannelType[] = [
  webChannelType,
  widgetChannelType,
  apiChannelType,
  syndicationChannelType,
]

/**
 * Publication channels of a media: `GET/POST /media/<slug>/channels`,
 * `GET/PUT/DELETE /media/<slug>/channel/<slug>`. A new media gets a Web and a Widget channel;
 * deleting a media deletes its channels. Channel types are pluggable: the built-in ones plus
 * those other plugins add on `channels.types`; `CHANNEL_OFFERS` tells the plugins that show media what
 * a media's online channels offer (flavors, players). Syndication channels show the address
 * of their feed, which the `syndication` plugin serves.
 */
export default definePlugin({
  name: 'channels',
  dependsOn: ['media', 'encoding'],
  entities: [ChannelEntity],
  migrations: [init, watch],
  register(ctx) {
    // Per kernel, never per module: several kernels may run in one process.
    const registry = new ChannelTypeRegistry(BUILT_IN_CHANNEL_TYPES, (add) => ctx.emit('channels.types', { add }))
    ctx.expose(CHANNEL_OFFERS, channelOffers(registry, ctx.cache<string[]>({ tables: ['channels'] })))
    const deps: ChannelsDeps = { registry }
    ctx.routes((r) => channelRoutes(r, deps))
    ctx.on('media.created', ({ em, media }) => seedChannels(em, media))
    // The foreign key cascades too; deleting explicitly keeps the outcome independent of it.
    ctx.on('media.deleting', ({ em, ids }) => deleteChannelsOf(em, ids))
  },
})
