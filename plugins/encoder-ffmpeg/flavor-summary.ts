import { encoderConfigSchema } from './encoder.config.js'

/**
 * The flavor names videos and sounds get with this plugin's section of the configuration (validated at boot), for
 * `mediactl doctor`: clients of the original service look for flavors by name.
 */
export function flavorSummary(section: unknown): string {
  const encoder = encoderConfigSchema.parse(section ?? {})
  const video = encoder.video.ladder.map((rung) => `${rung.name} (${rung.width}x${rung.height})`).join(', ')
  const audio = encoder.audio.flavors.map((flavor) => flavor.name).join(', ')
  return `video ${video}, ladder ${encoder.video.ladder_preset}; audio ${audio}`
}
