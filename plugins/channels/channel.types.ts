import type { RenditionView } from '../encoding/index.js'

/**
 * One flavor a channel offers for a published file: a rendition (an MP4 of the ladder, an
 * audio file), the HLS rendition, or the uploaded original. `name` is what clients see
 * (`<flavor name="720p">`).
 */
export type FlavorChoice =
  | { name: string; source: 'rendition'; rendition: RenditionView }
  | { name: string; source: 'hls' }
  | { name: string; source: 'original' }

/** What a channel type contributes to a published resource. */
export interface ChannelType {
  /** The `type` word (web, widget, api, syndication): letters, digits, `-` and `_`, lowercase. */
  type: string
  /** Whether channels of this type have `theme` and `skin` (web). */
  themed: boolean
  /**
   * The flavors this channel type offers for a published file, in order: names and which
   * rendition each one is. `file.type` is the probed type (video, audio, image, document,
   * other); `renditions` are every rendition of the file (thumbnails and snapshots included).
   * Pure: no I/O.
   */
  flavors(file: { type: string }, renditions: readonly RenditionView[]): FlavorChoice[]
  /** Whether it offers players (the player page) for resources. */
  players: boolean
}

/** What a type word may be: letters, digits, `-` and `_` (the set of types is open). */
export const CHANNEL_TYPE_WORD = /^[A-Za-z0-9_-]+$/
