import { z } from 'zod'

/** The `resources` section of the configuration (docs/configuration.md). */
export const resourcesConfigSchema = z
  .object({
    /**
     * Seconds the media links of a resource asked `with-token` stay valid at least (default
     * 6 h). Expiries are rounded up to the hour, so a link stays the same for an hour.
     */
    token_ttl: z.coerce.number().int().min(60).default(21600),
  })
  .strict()

export type ResourcesConfig = z.infer<typeof resourcesConfigSchema>
