import type { RenditionView } from '../encoding/index.js'
import type { ChannelType } from './channel.types.js'
import { audioFlavors, mp4Flavors, offer } from './flavor.picks.js'

/** Tallest picture a syndicated download should have: feeds are read on small screens and slow links. */
export const SYNDICATION_MAX_HEIGHT = 720

/** The largest MP4 no taller than 720 pixels, else the smallest one. */
function videoDownload(renditions: readonly RenditionView[]): RenditionView | undefined {
  const ladder = mp4Flavors(renditions)
  return ladder.find((r) => r.height !== null && r.height <= SYNDICATION_MAX_HEIGHT) ?? ladder.at(-1)
}

/** The aac flavor (`audio/mp4`), else the mp3 one (`audio/mpeg`). */
function audioDownload(renditions: readonly RenditionView[]): RenditionView | undefined {
  const audio = audioFlavors(renditions)
  return audio.find((r) => r.mimeType === 'audio/mp4') ?? audio.find((r) => r.mimeType === 'audio/mpeg')
}

/** Feeds (RSS, podcasts, partners): one file to download, named `download`; no players. */
export const syndicationChannelType: ChannelType = {
  type: 'syndication',
  themed: false,
  players: false,
  flavors(file, renditions) {
    const pick = file.type === 'audio' ? audioDownload(renditions) : videoDownload(renditions)
    return pick ? [offer(pick, 'download')] : []
  },
}
