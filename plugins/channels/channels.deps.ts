import type { ChannelTypeRegistry } from './channel-type.registry.js'

/** What the channels plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface ChannelsDeps {
  /** The channel types: the built-in ones and those other plugins add on `channels.types` (one per kernel). */
  readonly registry: ChannelTypeRegistry
}
