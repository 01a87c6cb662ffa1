import { join, resolve } from 'node:path'
import type { ProbeResult } from '../../src/kernel/index.js'
import type { EncoderConfig } from './encoder.config.js'
import { type Binaries, EncoderRun } from './encoder-run.js'
import { grabFrame } from './frame-grab.js'
import { mainVideo, videoSeconds } from './ffmpeg-args.js'
import { fitInside } from './ladder.js'
import { inWorkFolder } from './work-folder.js'

/** Most snapshots one call may ask for (the API shows 10). */
export const MAX_SNAPSHOTS = 100

/**
 * Extracts snapshots: frame i at (i + 0.5) / count of the video's duration, so they are
 * spread over the whole video and none is the black first frame or the last one. One short
 * ffmpeg process per frame, seeking its input: memory stays that of one decoder whatever
 * the count, and each costs the decoding of at most one keyframe interval.
 */
export class SnapshotsService {
  constructor(
    private readonly binaries: Binaries,
    private readonly config: EncoderConfig,
  ) {}

  async snapshots(
    input: string,
    outputDir: string,
    count: number,
    probe: ProbeResult,
    signal: AbortSignal,
  ): Promise<string[]> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_SNAPSHOTS) {
      throw new RangeError(`snapshot count must be an integer from 1 to ${MAX_SNAPSHOTS}, not ${count}`)
    }
    const video = mainVideo(probe)
    if (probe.type !== 'video' || !video || !probe.width || !probe.height) return []
    const size = fitInside(
      { width: probe.width, height: probe.height },
      { width: this.config.snapshots.width, height: Number.MAX_SAFE_INTEGER },
    )
    const seconds = videoSeconds(probe, video)
    return inWorkFolder(outputDir, async (work) => {
      const run = new EncoderRun(this.binaries, this.config.time_limit, signal, work)
      const entries: string[] = []
      for (let i = 0; i < count; i++) {
        const file = `${i}.jpg`
        await grabFrame(run, {
          input,
          probe,
          video,
          at: (seconds * (i + 0.5)) / count,
          size,
          output: join(work, file),
          threads: this.config.threads,
        })
        entries.push(file)
      }
      return { result: entries.map((file) => join(resolve(outputDir), file)), entries }
    })
  }
}
