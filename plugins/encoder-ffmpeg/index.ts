import { definePlugin } from '../../src/kernel/index.js'
import { encoderConfigSchema } from './encoder.config.js'
import { FfmpegEncoder } from './ffmpeg-encoder.js'
import { findBinaries } from './ffmpeg-binaries.js'

export { FfmpegEncoder } from './ffmpeg-encoder.js'
export { encoderConfigSchema, type EncoderConfig } from './encoder.config.js'
export { flavorSummary } from './flavor-summary.js'
export { EncoderInputError, EncoderTimeoutError, FfmpegError } from './encoder.errors.js'

/**
 * The media encoder: probing, the renditions of videos (MP4 ladder, HLS, thumbnail), sounds
 * and images, snapshots and logo insertion, with ffmpeg and ffprobe. The binaries are looked
 * up at boot (`FFMPEG_PATH` / `FFPROBE_PATH`, else PATH, else the copies bundled from npm), so
 * a missing one stops the boot rather than the first encoding.
 */
export default definePlugin({
  name: 'encoder-ffmpeg',
  provides: ['encoder'],
  config: encoderConfigSchema,
  register(ctx) {
    const binaries = findBinaries()
    ctx.log.debug(binaries, 'media binaries')
    ctx.provide('encoder', new FfmpegEncoder(binaries, ctx.config))
  },
})
