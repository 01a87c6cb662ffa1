import { type ProcessCache, type Reader, serviceKey } from '../../src/kernel/index.js'
import type { RenditionView } from '../encoding/index.js'
import type { ChannelTypeRegistry } from './channel-type.registry.js'
import type { ChannelType, FlavorChoice } from './channel.types.js'
import { channelQueries } from './channel.queries.js'

/** What a media's online channels offer for its published files. */
export interface ChannelOffer {
  /**
   * The flavors of a file: those of each online channel, oldest channel first, each name once
   * (the first channel offering a name decides which rendition it is). Pure.
   */
  flavors(file: { type: string }, renditions: readonly RenditionView[]): FlavorChoice[]
  /** Whether some online channel offers players (the player page). */
  players: boolean
}

/** The offer of a list of channel types, in channel order. */
export function offerOf(types: readonly ChannelType[]): ChannelOffer {
  return {
    players: types.some((type) => type.players),
    flavors(file, renditions) {
      const seen = new Set<string>()
      const choices: FlavorChoice[] = []
      for (const type of types) {
        for (const choice of type.flavors(file, renditions)) {
          if (seen.has(choice.name)) continue
          seen.add(choice.name)
          choices.push(choice)
        }
      }
      return choices
    },
  }
}

/** What the online channels of a media offer, for the plugins that show media (`CHANNEL_OFFERS`). */
export interface ChannelOffers {
  /**
   * What the online channels of `mediaId` offer (committed data, read with `reader`):
   * offline channels and channels of unknown types contribute nothing.
   */
  of(reader: Reader, mediaId: number): Promise<ChannelOffer>
}

/** The channels plugin's offers, for the plugins that depend on it. */
export const CHANNEL_OFFERS = serviceKey<ChannelOffers>('channels.offers')

/**
 * The offers of the channel types of `registry` (one per kernel: several may share a process),
 * each media's online channel types kept in `cache` until a channel changes: every answer
 * showing a resource asks, and channels change rarely.
 */
export function channelOffers(registry: ChannelTypeRegistry, cache: ProcessCache<string[]>): ChannelOffers {
  return {
    async of(reader, mediaId) {
      const types = await registry.types()
      const words = await cache.get(String(mediaId), () => channelQueries.onlineTypes(reader, mediaId))
      return offerOf(words.map((word) => types.get(word)).filter((type): type is ChannelType => type !== undefined))
    },
  }
}
