import type { ChannelType } from './channel.types.js'

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /**
     * Collects the channel types: emitted once per kernel, lazily, the first time the channels
     * plugin needs its registry (a channel answer, a theme check, `channelOffer`). A plugin adds
     * its types with `add`, synchronously, during the emit; a type word already defined (a
     * built-in one included) or malformed is refused with an error.
     */
    'channels.types': { add(type: ChannelType): void }
  }
}
