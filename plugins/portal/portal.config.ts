import { z } from 'zod'

/** The `portal` section of the configuration (docs/configuration.md); every key has a default. */
export const portalConfigSchema = z
  .object({
    /**
     * Seconds the thumbnail links of portal pages stay valid at least (default 6 h; rounded up
     * to the hour like every resource token). Pages are cached 60 s, so this must stay well above.
     */
    token_ttl: z.coerce.number().int().min(600).default(21600),
    /**
     * Seconds a serving process keeps the answer of a host lookup (which media a Host names, or
     * none): a new or changed domain shows within this delay. 0: looked up on every request.
     */
    host_cache_ttl: z.coerce.number().min(0).max(3600).default(5),
    /** Top-level streams per page of the home page (each with its sub-streams). */
    streams_per_page: z.coerce.number().int().min(1).max(100).default(10),
    /** Latest resources shown under each stream of the home page. */
    latest_per_stream: z.coerce.number().int().min(1).max(24).default(4),
    /** Resources per page of a stream page. */
    resources_per_page: z.coerce.number().int().min(1).max(200).default(24),
  })
  .strict()

export type PortalConfig = z.infer<typeof portalConfigSchema>
