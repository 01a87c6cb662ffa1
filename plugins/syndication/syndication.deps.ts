import type { ChannelOffers } from '../channels/index.js'
import type { ShownRenditions } from '../encoding/index.js'
import type { ResourceDescriber } from '../resources/index.js'

/**
 * What the feeds read through the plugins they depend on, from `register` (docs/architecture.md,
 * How a plugin gets what it uses).
 */
export interface SyndicationDeps {
  /** The resources plugin's details: media links with tokens. */
  readonly describer: ResourceDescriber
  /** What a media's online channels offer: the flavors a feed lists. */
  readonly offers: ChannelOffers
  /** What shows of each file's renditions: its thumbnail. */
  readonly shown: ShownRenditions
}
