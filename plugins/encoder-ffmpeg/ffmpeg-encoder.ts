import type { EncodeRequest, EncoderPort, LogoRequest, ProbeResult, RenditionOutput } from '../../src/kernel/index.js'
import { AUDIO_STEPS, audioRenditions } from './audio-renditions.js'
import type { EncoderConfig } from './encoder.config.js'
import { type Binaries, EncoderRun } from './encoder-run.js'
import { EncoderInputError } from './encoder.errors.js'
import { IMAGE_STEPS, imageRenditions } from './image-renditions.js'
import { LogoService } from './logo.service.js'
import { isRefusedFormat } from './media-type.js'
import { ProbeService } from './probe.service.js'
import { ProgressTracker } from './progress-tracker.js'
import { SnapshotsService } from './snapshots.service.js'
import type { Renderer } from './rendition-context.js'
import { VIDEO_STEPS, videoRenditions } from './video-renditions.js'
import { inWorkFolder } from './work-folder.js'

/**
 * The `encoder` port over the ffmpeg and ffprobe binaries, run directly (no shell, no
 * wrapper library): every input local only (`-protocol_whitelist file,pipe`, read with the
 * demuxer probing found), every run under a time limit, every output written in a work
 * folder and moved into place only when complete.
 */
export class FfmpegEncoder implements EncoderPort {
  private readonly probes: ProbeService
  private readonly snapshotService: SnapshotsService
  private readonly logos: LogoService

  constructor(
    readonly binaries: Binaries,
    readonly config: EncoderConfig,
  ) {
    this.probes = new ProbeService(binaries, config.probe_time_limit)
    this.snapshotService = new SnapshotsService(binaries, config)
    this.logos = new LogoService(binaries, config, this.probes)
  }

  probe(input: string, signal?: AbortSignal): Promise<ProbeResult> {
    return this.probes.probe(input, signal)
  }

  async encode(request: EncodeRequest): Promise<RenditionOutput[]> {
    const { probe, signal } = request
    if (signal.aborted) throw signal.reason
    if (isRefusedFormat(probe.format)) throw new EncoderInputError(`refused input format "${probe.format}"`)
    const kind = probe.type === 'video' || probe.type === 'audio' || probe.type === 'image' ? probe.type : null
    if (!kind) {
      // Documents and other files have no renditions.
      request.onProgress(100)
      return []
    }
    const { steps, render } = this.renditionsOf(kind)
    const tracker = new ProgressTracker((percent) => request.onProgress(percent), steps)
    tracker.start()
    const outputs = await inWorkFolder(request.outputDir, async (work) => {
      const run = new EncoderRun(this.binaries, this.config.time_limit, signal, work)
      const { outputs, entries } = await render(
        { run, config: this.config, work, input: request.input, probe },
        tracker,
      )
      return { result: outputs, entries }
    })
    tracker.complete()
    return outputs
  }

  /** The steps (with their relative cost, for progress) and the renderer of a media type. */
  private renditionsOf(kind: 'video' | 'audio' | 'image'): { steps: Record<string, number>; render: Renderer } {
    switch (kind) {
      case 'video':
        return {
          steps: { ...VIDEO_STEPS, hls: this.config.hls.enabled ? VIDEO_STEPS.hls : 0 },
          render: videoRenditions,
        }
      case 'audio':
        return { steps: AUDIO_STEPS, render: audioRenditions }
      case 'image':
        return { steps: IMAGE_STEPS, render: imageRenditions }
    }
  }

  snapshots(
    input: string,
    outputDir: string,
    count: number,
    probe: ProbeResult,
    signal: AbortSignal,
  ): Promise<string[]> {
    return this.snapshotService.snapshots(input, outputDir, count, probe, signal)
  }

  insertLogo(request: LogoRequest): Promise<void> {
    return this.logos.insertLogo(request)
  }
}
