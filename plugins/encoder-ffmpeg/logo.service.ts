import { basename, dirname, join, resolve } from 'node:path'
import type { LogoPlacement, LogoRequest } from '../../src/kernel/index.js'
import type { EncoderConfig } from './encoder.config.js'
import { type Binaries, EncoderRun } from './encoder-run.js'
import { EncoderInputError } from './encoder.errors.js'
import { NO_METADATA, audioArgs, inputArgs, mainAudio, mainVideo, num, threadArgs } from './ffmpeg-args.js'
import { evenFloor } from './ladder.js'
import { uprightFilters } from './orientation.js'
import type { ProbeService } from './probe.service.js'
import { ProgressTracker } from './progress-tracker.js'
import { inWorkFolder } from './work-folder.js'

/** The logo's rectangle in pixels of the frame. */
export interface LogoBox {
  x: number
  y: number
  width: number
  height: number
}

/**
 * The placement checked and turned into pixels of a `frame`-sized picture. Every value must
 * be a finite number (the filter graph receives only the numbers computed here, never text
 * from a request): left and top from 0 to under 100, width and height above 0 up to 100.
 */
export function logoBox(placement: LogoPlacement, frame: { width: number; height: number }): LogoBox {
  const values = [placement.left, placement.top, placement.width, placement.height]
  if (!values.every((value) => typeof value === 'number' && Number.isFinite(value))) {
    throw new EncoderInputError('logo placement: left, top, width and height must be numbers')
  }
  if (placement.left < 0 || placement.left >= 100 || placement.top < 0 || placement.top >= 100) {
    throw new EncoderInputError('logo placement: left and top are percentages from 0 to less than 100')
  }
  if (placement.width <= 0 || placement.width > 100 || placement.height <= 0 || placement.height > 100) {
    throw new EncoderInputError('logo placement: width and height are percentages above 0, up to 100')
  }
  return {
    x: Math.round((frame.width * placement.left) / 100),
    y: Math.round((frame.height * placement.top) / 100),
    width: Math.max(1, Math.round((frame.width * placement.width) / 100)),
    height: Math.max(1, Math.round((frame.height * placement.height) / 100)),
  }
}

/**
 * Inserts a logo: the picture is scaled to its box in pixels computed from the video's
 * display size (not with `scale2ref`, whose variables changed meaning between ffmpeg
 * versions) and laid over every frame, transparency kept; the result is re-encoded at the
 * source's size with a high quality, since it is itself encoded again like any upload.
 */
export class LogoService {
  constructor(
    private readonly binaries: Binaries,
    private readonly config: EncoderConfig,
    private readonly probes: ProbeService,
  ) {}

  async insertLogo(request: LogoRequest): Promise<void> {
    const { probe, signal } = request
    const video = mainVideo(probe)
    if (probe.type !== 'video' || !video || !probe.width || !probe.height) {
      throw new EncoderInputError('a logo can only be inserted into a video')
    }
    // H.264 in 4:2:0 wants even sizes: an odd source loses its last column or row.
    const frame = { width: evenFloor(probe.width), height: evenFloor(probe.height) }
    const box = logoBox(request.placement, frame)
    const logo = await this.probes.probe(request.logo, signal)
    const picture = mainVideo(logo)
    if (logo.type !== 'image' || !picture) throw new EncoderInputError('the logo must be an image')

    const tracker = new ProgressTracker(request.onProgress, { logo: 1 })
    tracker.start()
    const output = resolve(request.output)
    await inWorkFolder(dirname(output), async (work) => {
      const run = new EncoderRun(this.binaries, this.config.time_limit, signal, work)
      const audio = mainAudio(probe)
      // Frames come out of the decoder turned upright (autorotation); pixels that are not
      // square are made square first, so the box in display pixels is the box in the frame.
      const graph = [
        `[0:${video.index}]scale=${frame.width}:${frame.height},setsar=1[base]`,
        `[1:${picture.index}]${[...uprightFilters(logo), `scale=${box.width}:${box.height}`, 'format=rgba'].join(',')}[logo]`,
        `[base][logo]overlay=x=${box.x}:y=${box.y}:eof_action=repeat:format=auto,format=yuv420p[video]`,
      ].join(';')
      const sound = audio
        ? ['-map', `0:${audio.index}`, ...(audio.codec === 'aac' ? ['-c:a', 'copy'] : audioArgs(audio, 'aac', 192))]
        : []
      await run.ffmpeg(
        [
          ...inputArgs(request.input, probe.format),
          ...inputArgs(request.logo, logo.format, ['-noautorotate']),
          '-filter_complex',
          graph,
          '-map',
          '[video]',
          ...sound,
          '-c:v',
          'libx264',
          '-preset',
          this.config.video.preset,
          '-crf',
          num(this.config.logo.crf),
          ...threadArgs(this.config.threads),
          ...NO_METADATA,
          '-movflags',
          '+faststart',
          '-f',
          'mp4',
          join(work, basename(output)),
        ],
        { tracker, step: 'logo', duration: probe.duration },
      )
      return { result: undefined, entries: [basename(output)] }
    })
    tracker.complete()
  }
}
