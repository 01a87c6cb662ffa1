import { z } from 'zod'
import { serviceKey } from '../../src/kernel/index.js'

/** The `resources` section of the configuration (docs/configuration.md). */
export const resourcesConfigSchema = z
  .object({
    /**
     * Seconds the media links of a resource asked `with-token` stay valid at least (default
     * 6 h). Expiries are rounded up to the hour, so a link stays the same for an hour.
     */
    token_ttl: z.coerce.number().int().min(60).default(21600),
    /**
     * Whether the media of published resources (visible, in visible streams, in a media with an
     * online channel) are served without credentials. false: Digest or a token, always.
     */
    public_assets: z
      .union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')])
      .default(true),
    /**
     * Milliseconds between two writes of the views counted by a serving process (default 1 s):
     * a write drops the answers kept by every process that show them. The shown `views` lag by
     * up to this; a crash loses the last interval's. 0: each view is written at once. At most an hour.
     */
    views_flush_ms: z.coerce.number().int().min(0).max(3_600_000).default(1000),
  })
  .strict()

export type ResourcesConfig = z.infer<typeof resourcesConfigSchema>

/** The resources' settings, for the plugins that describe resources in pages of their own (the player). */
export const RESOURCES_SETTINGS = serviceKey<Readonly<ResourcesConfig>>('resources.settings')
