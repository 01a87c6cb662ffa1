import { z } from 'zod'

/** The `encoding` section of the configuration (docs/configuration.md). */
export const encodingConfigSchema = z
  .object({
    /**
     * Seconds a media link asked `with-token` stays valid at least (default 6 h). Expiries are
     * rounded up to the hour, so a link stays the same for an hour and clients can cache it.
     */
    token_ttl: z.coerce.number().int().min(60).default(21600),
    /** Largest image accepted as a custom snapshot, in bytes (413 beyond; default 20 MB). */
    max_snapshot_size: z.coerce.number().int().min(1024).default(20971520),
  })
  .strict()

export type EncodingConfig = z.infer<typeof encodingConfigSchema>
