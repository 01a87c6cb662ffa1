import { z } from 'zod'

/** The `player` section of the configuration (docs/configuration.md). */
export const playerConfigSchema = z
  .object({
    /**
     * Seconds the view token of a player page stays usable (default 4 h): a playback started
     * later than that after the page was loaded is not counted. The sessions counted are
     * remembered as long as their token lives, so this also bounds that table.
     */
    view_token_ttl: z.coerce.number().int().min(60).max(86400).default(14400),
  })
  .strict()

export type PlayerConfig = z.infer<typeof playerConfigSchema>
