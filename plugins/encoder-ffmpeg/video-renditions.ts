import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { ProbedStream, RenditionOutput } from '../../src/kernel/index.js'
import { EncoderInputError } from './encoder.errors.js'
import { grabFrame } from './frame-grab.js'
import {
  NO_METADATA,
  audioArgs,
  inputArgs,
  mainAudio,
  mainVideo,
  num,
  threadArgs,
  videoSeconds,
} from './ffmpeg-args.js'
import { type HlsVariant, VARIANT_PLAYLIST, codecsOf, writeMasterPlaylist } from './hls-master.js'
import { type PlannedRung, type Size, fitInside, planLadder } from './ladder.js'
import { probeOutput } from './output-probe.js'
import type { ProgressTracker } from './progress-tracker.js'
import { THUMBNAIL_FILE, type Rendered, type RenditionContext } from './rendition-context.js'

/** Relative cost of the steps of a video, for progress: the cut into HLS segments copies, it does not encode. */
export const VIDEO_STEPS = { flavors: 100, hls: 3, thumbnail: 1 }

export const HLS_FOLDER = 'hls'

/**
 * Encodes every planned rung in one ffmpeg process: the source is read and decoded once,
 * split, and each copy scaled and encoded, far cheaper than one pass per rung. Keyframes are
 * forced at every multiple of the HLS segment length, at the same instants in every rung, so
 * the segments cut from them line up across variants.
 */
async function encodeFlavors(
  context: RenditionContext,
  video: ProbedStream,
  plan: PlannedRung[],
  tracker: ProgressTracker,
): Promise<void> {
  const { config, probe } = context
  const audio = mainAudio(probe)
  const split = plan.length > 1 ? `split=${plan.length}${plan.map((_, i) => `[s${i}]`).join('')};` : ''
  const graph =
    `[0:${video.index}]${split || 'null[s0];'}` +
    plan.map(({ width, height }, i) => `[s${i}]scale=${width}:${height},setsar=1,format=yuv420p[v${i}]`).join(';')
  const args = [...inputArgs(context.input, probe.format), '-filter_complex', graph]
  for (const [i, { rung }] of plan.entries()) {
    args.push('-map', `[v${i}]`)
    if (audio) args.push('-map', `0:${audio.index}`, ...audioArgs(audio, 'aac', rung.audio_bitrate))
    args.push(
      '-c:v',
      'libx264',
      '-preset',
      config.video.preset,
      '-profile:v',
      config.video.profile,
      '-crf',
      num(rung.crf),
      ...(rung.maxrate > 0 ? ['-maxrate', `${rung.maxrate}k`, '-bufsize', `${rung.maxrate * 2}k`] : []),
      '-force_key_frames',
      `expr:gte(t,n_forced*${num(config.hls.segment_duration)})`,
      ...threadArgs(config.threads),
      ...NO_METADATA,
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      join(context.work, `${rung.name}.mp4`),
    )
  }
  await context.run.ffmpeg(args, { tracker, step: 'flavors', duration: probe.duration })
}

/**
 * Cuts the MP4 flavors into HLS variants (MPEG-TS segments, which every HLS player reads)
 * with `-c copy`: no second encoding, one process for every variant.
 */
async function cutHls(context: RenditionContext, plan: PlannedRung[], tracker: ProgressTracker): Promise<void> {
  const hls = join(context.work, HLS_FOLDER)
  const args: string[] = []
  for (const { rung } of plan) args.push(...inputArgs(join(context.work, `${rung.name}.mp4`), 'mov'))
  for (const [i, { rung }] of plan.entries()) {
    const folder = join(hls, rung.name)
    await mkdir(folder, { recursive: true })
    args.push(
      '-map',
      `${i}`,
      '-c',
      'copy',
      '-f',
      'hls',
      '-hls_time',
      num(context.config.hls.segment_duration),
      '-hls_playlist_type',
      'vod',
      '-hls_segment_filename',
      join(folder, 'seg-%05d.ts'),
      join(folder, VARIANT_PLAYLIST),
    )
  }
  await context.run.ffmpeg(args, { tracker, step: 'hls', duration: context.probe.duration })
}

/**
 * A video's renditions: the MP4 ladder (H.264 + AAC, fast start), the HLS rendition cut
 * from it, and a thumbnail. The work folder's entries are returned for moving into place.
 */
export async function videoRenditions(context: RenditionContext, tracker: ProgressTracker): Promise<Rendered> {
  const { probe, config, work } = context
  const video = mainVideo(probe)
  if (!video || !probe.width || !probe.height) throw new EncoderInputError('the input has no video stream to encode')
  const source: Size = { width: probe.width, height: probe.height }
  const plan = planLadder(config.video.ladder, source)

  await encodeFlavors(context, video, plan, tracker)
  const outputs: RenditionOutput[] = []
  const variants: HlsVariant[] = []
  for (const { rung, width, height } of plan) {
    const facts = await probeOutput(context.run, join(work, `${rung.name}.mp4`))
    outputs.push({
      kind: 'flavor',
      name: rung.name,
      path: `${rung.name}.mp4`,
      mimeType: 'video/mp4',
      width: facts.width ?? width,
      height: facts.height ?? height,
      ...(facts.duration ? { duration: facts.duration } : {}),
    })
    variants.push({ name: rung.name, width, height, codecs: codecsOf(facts, facts.hasAudio) })
  }
  const entries = outputs.map((output) => output.path)

  if (config.hls.enabled) {
    await cutHls(context, plan, tracker)
    await writeMasterPlaylist(join(work, HLS_FOLDER), variants)
    const [largest] = plan
    outputs.push({
      kind: 'hls',
      name: 'hls',
      path: HLS_FOLDER,
      mimeType: 'application/vnd.apple.mpegurl',
      width: largest!.width,
      height: largest!.height,
      ...(outputs[0]?.duration ? { duration: outputs[0].duration } : {}),
    })
    entries.push(HLS_FOLDER)
  }

  const thumbnail = fitInside(source, { width: config.thumbnail.width, height: Number.MAX_SAFE_INTEGER })
  await grabFrame(context.run, {
    input: context.input,
    probe,
    video,
    at: videoSeconds(probe, video) * config.thumbnail.position,
    size: thumbnail,
    output: join(work, THUMBNAIL_FILE),
    threads: config.threads,
  })
  tracker.update('thumbnail', 1)
  outputs.push({ kind: 'thumbnail', name: 'thumbnail', path: THUMBNAIL_FILE, mimeType: 'image/jpeg', ...thumbnail })
  entries.push(THUMBNAIL_FILE)
  return { outputs, entries }
}
