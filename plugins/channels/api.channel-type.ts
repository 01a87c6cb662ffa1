import type { ChannelType } from './channel.types.js'
import { audioFlavors, offer, videoFlavors } from './flavor.picks.js'

/**
 * Programs reading the web service: the original (`source`) and every flavor (video largest
 * first, then audio); no players.
 */
export const apiChannelType: ChannelType = {
  type: 'api',
  themed: false,
  players: false,
  flavors: (_file, renditions) => [
    { name: 'source', source: 'original' },
    ...videoFlavors(renditions).map((r) => offer(r)),
    ...audioFlavors(renditions).map((r) => offer(r)),
  ],
}
