import { join } from 'node:path'
import type { RenditionOutput } from '../../src/kernel/index.js'
import { EncoderInputError } from './encoder.errors.js'
import { NO_METADATA, audioArgs, inputArgs, mainAudio, threadArgs } from './ffmpeg-args.js'
import { probeOutput } from './output-probe.js'
import type { ProgressTracker } from './progress-tracker.js'
import type { Rendered, RenditionContext } from './rendition-context.js'

/** The file of each audio codec: MP4 audio (.m4a) for AAC, MPEG audio for MP3. */
const CONTAINERS = {
  aac: { extension: 'm4a', muxer: ['-movflags', '+faststart', '-f', 'mp4'], mimeType: 'audio/mp4' },
  mp3: { extension: 'mp3', muxer: ['-f', 'mp3'], mimeType: 'audio/mpeg' },
}

export const AUDIO_STEPS = { flavors: 1 }

/**
 * A sound file's flavors, all from one ffmpeg process (the input decoded once): the first
 * sound stream only, cover art and tags dropped.
 */
export async function audioRenditions(context: RenditionContext, tracker: ProgressTracker): Promise<Rendered> {
  const { config, probe, work } = context
  const audio = mainAudio(probe)
  if (!audio) throw new EncoderInputError('the input has no sound stream to encode')
  const args = inputArgs(context.input, probe.format)
  const files = config.audio.flavors.map((flavor) => ({ flavor, container: CONTAINERS[flavor.codec] }))
  for (const { flavor, container } of files) {
    args.push(
      '-map',
      `0:${audio.index}`,
      ...audioArgs(audio, flavor.codec, flavor.bitrate),
      ...threadArgs(config.threads),
      ...NO_METADATA,
      ...container.muxer,
      join(work, `${flavor.name}.${container.extension}`),
    )
  }
  await context.run.ffmpeg(args, { tracker, step: 'flavors', duration: probe.duration })
  const outputs: RenditionOutput[] = []
  for (const { flavor, container } of files) {
    const path = `${flavor.name}.${container.extension}`
    const facts = await probeOutput(context.run, join(work, path))
    outputs.push({
      kind: 'flavor',
      name: flavor.name,
      path,
      mimeType: container.mimeType,
      ...(facts.duration ? { duration: facts.duration } : {}),
    })
  }
  return { outputs, entries: outputs.map((output) => output.path) }
}
