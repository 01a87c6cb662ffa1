import type { ChannelType } from './channel.types.js'

/** Embeddable widgets and players on other sites: players, no flavors of its own. */
export const widgetChannelType: ChannelType = {
  type: 'widget',
  themed: false,
  players: true,
  flavors: () => [],
}
