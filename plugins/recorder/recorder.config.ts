import { validateCronExpression } from 'cron'
import { z } from 'zod'

/** The `recorder` section of the configuration (docs/configuration.md). */
export const recorderConfigSchema = z
  .object({
    /** Seconds a recorder code (the identifier in the widget's code) stays usable (default 24 h, at most 30 days). */
    code_ttl: z.coerce.number().int().min(60).max(2592000).default(86400),
    /** When serving processes remove expired recorder codes (cron syntax, server time); empty: only `mediactl purge`. */
    purge_schedule: z
      .string()
      .default('23 * * * *')
      .refine((value) => value === '' || validateCronExpression(value).valid, {
        message: 'must be a cron expression (for example "23 * * * *": every hour at minute 23), or empty',
      }),
  })
  .strict()

export type RecorderConfig = z.infer<typeof recorderConfigSchema>
