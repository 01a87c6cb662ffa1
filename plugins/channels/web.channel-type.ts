import type { ChannelType, FlavorChoice } from './channel.types.js'
import { audioFlavors, hlsRendition, mp4Flavors, offer } from './flavor.picks.js'

/**
 * The media's web site (player pages): every MP4 of the ladder, largest first, then `hls`;
 * for sound files, the audio flavors. Themed: its pages have a theme and a skin.
 */
export const webChannelType: ChannelType = {
  type: 'web',
  themed: true,
  players: true,
  flavors(file, renditions) {
    const choices: FlavorChoice[] = mp4Flavors(renditions).map((r) => offer(r))
    if (hlsRendition(renditions)) choices.push({ name: 'hls', source: 'hls' })
    if (file.type === 'audio') choices.push(...audioFlavors(renditions).map((r) => offer(r)))
    return choices
  },
}
