import { definePlugin } from '../../src/kernel/index.js'
import { CHANNEL_OFFERS } from '../channels/index.js'
import { SHOWN_RENDITIONS } from '../encoding/index.js'
import { RESOURCE_DETAILS } from '../resources/index.js'
import { feedRoutes } from './feed.routes.js'
import type { SyndicationDeps } from './syndication.deps.js'

/**
 * The feeds of syndication channels: `GET /media/<slug>/channel/<slug>/feed.rss` (public),
 * RSS 2.0 with Media RSS and iTunes tags, listing the visible resources of the media's visible
 * streams with tokenized media URLs that feed readers and podcast apps fetch without credentials.
 */
export default definePlugin({
  name: 'syndication',
  dependsOn: ['media', 'encoding', 'channels', 'resources'],
  register(ctx) {
    const deps: SyndicationDeps = {
      describer: ctx.use(RESOURCE_DETAILS),
      offers: ctx.use(CHANNEL_OFFERS),
      shown: ctx.use(SHOWN_RENDITIONS),
    }
    ctx.routes((r) => feedRoutes(r, deps))
  },
})
