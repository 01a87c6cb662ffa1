import type { Emit, StoragePort } from '../../src/kernel/index.js'
import type { ChannelOffers } from '../channels/index.js'
import type { ShownRenditions } from '../encoding/index.js'
import type { StreamPaths } from '../streams/index.js'
import type { ResourceDescriber } from './resource.details.js'
import type { ResourcesConfig } from './resources.config.js'

/** What the resources' routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface ResourcesDeps {
  readonly config: ResourcesConfig
  /** Announces `resource.created`, `resource.updated`, `resource.deleting` and `resource.deleted`. */
  readonly emit: Emit
  /** The details of resources for their answers (the `RESOURCE_DETAILS` this plugin exposes). */
  readonly details: ResourceDescriber
  /** The stream a path names (the streams plugin's `STREAM_PATHS`). */
  readonly streams: StreamPaths
  /** Where the media of a resource's file live. */
  readonly storage: StoragePort
  /** What a media's online channels offer (the channels plugin's `CHANNEL_OFFERS`): the source, or not. */
  readonly offers: ChannelOffers
  /** What shows of each file's renditions (the encoding plugin's `SHOWN_RENDITIONS`). */
  readonly renditions: ShownRenditions
}
