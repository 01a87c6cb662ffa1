import type { RenditionView } from '../encoding/index.js'
import type { FlavorChoice } from './channel.types.js'

/** Shared rendition picks of the built-in channel types. Pure. */

const area = (r: RenditionView): number => (r.width ?? 0) * (r.height ?? 0)

/** Largest picture first (height, then area); equal ones keep their rendition order. */
const largestFirst = (a: RenditionView, b: RenditionView): number =>
  (b.height ?? 0) - (a.height ?? 0) || area(b) - area(a)

/** The video flavors (any `video/*` type), largest first. */
export const videoFlavors = (renditions: readonly RenditionView[]): RenditionView[] =>
  renditions.filter((r) => r.kind === 'flavor' && r.mimeType.startsWith('video/')).sort(largestFirst)

/** The MP4 flavors of the video ladder, largest first. */
export const mp4Flavors = (renditions: readonly RenditionView[]): RenditionView[] =>
  videoFlavors(renditions).filter((r) => r.mimeType === 'video/mp4')

/** The audio flavors (`audio/*`: aac as `audio/mp4`, mp3 as `audio/mpeg`), in rendition order. */
export const audioFlavors = (renditions: readonly RenditionView[]): RenditionView[] =>
  renditions.filter((r) => r.kind === 'flavor' && r.mimeType.startsWith('audio/'))

/** The HLS rendition, if the file has one. */
export const hlsRendition = (renditions: readonly RenditionView[]): RenditionView | undefined =>
  renditions.find((r) => r.kind === 'hls')

/** A rendition offered under its own name, or under `name`. */
export const offer = (rendition: RenditionView, name = rendition.name): FlavorChoice => ({
  name,
  source: 'rendition',
  rendition,
})
