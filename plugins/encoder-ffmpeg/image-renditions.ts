import { join } from 'node:path'
import { EncoderInputError } from './encoder.errors.js'
import { NO_METADATA, inputArgs, mainVideo, num, threadArgs } from './ffmpeg-args.js'
import { fitInside } from './ladder.js'
import { uprightFilters } from './orientation.js'
import type { ProgressTracker } from './progress-tracker.js'
import { THUMBNAIL_FILE, type Rendered, type RenditionContext } from './rendition-context.js'

export const IMAGE_FILE = 'image.jpg'
export const IMAGE_STEPS = { image: 1 }

/**
 * An image's renditions, from one ffmpeg process: the picture turned upright, bounded to
 * `image.max_size`, flattened on white (JPEG has no transparency, and a transparent PNG
 * would otherwise turn black), as a JPEG; and its thumbnail.
 */
export async function imageRenditions(context: RenditionContext, tracker: ProgressTracker): Promise<Rendered> {
  const { config, probe, work } = context
  const picture = mainVideo(probe)
  if (!picture || !probe.width || !probe.height) throw new EncoderInputError('the input has no picture to encode')
  const bound = config.image.max_size
  const full = fitInside({ width: probe.width, height: probe.height }, { width: bound, height: bound }, false)
  const thumbnail = fitInside(full, { width: config.thumbnail.width, height: Number.MAX_SAFE_INTEGER }, false)
  const upright = uprightFilters(probe)
  const graph = [
    `[0:${picture.index}]${[...upright, `scale=${full.width}:${full.height}`, 'setsar=1'].join(',')}[picture]`,
    `color=c=white:s=${full.width}x${full.height}:r=1[paper]`,
    '[paper][picture]overlay=shortest=1:format=auto,split=2[full][small]',
    `[small]scale=${thumbnail.width}:${thumbnail.height},setsar=1[thumbnail]`,
  ].join(';')
  const jpeg = (label: string, quality: number, file: string): string[] => [
    '-map',
    `[${label}]`,
    '-frames:v',
    '1',
    '-q:v',
    num(quality),
    ...threadArgs(config.threads),
    ...NO_METADATA,
    '-f',
    'mjpeg',
    join(work, file),
  ]
  // The picture is turned upright by the filters above, the same with every ffmpeg build.
  await context.run.ffmpeg([
    ...inputArgs(context.input, probe.format, ['-noautorotate']),
    '-filter_complex',
    graph,
    ...jpeg('full', config.image.quality, IMAGE_FILE),
    ...jpeg('thumbnail', 3, THUMBNAIL_FILE),
  ])
  tracker.update('image', 1)
  return {
    outputs: [
      { kind: 'image', name: 'image', path: IMAGE_FILE, mimeType: 'image/jpeg', ...full },
      { kind: 'thumbnail', name: 'thumbnail', path: THUMBNAIL_FILE, mimeType: 'image/jpeg', ...thumbnail },
    ],
    entries: [IMAGE_FILE, THUMBNAIL_FILE],
  }
}
