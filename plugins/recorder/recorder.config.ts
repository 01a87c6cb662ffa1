import { z } from 'zod'

/** The `recorder` section of the configuration (docs/configuration.md). */
export const recorderConfigSchema = z
  .object({
    /** Seconds a recorder code (the identifier in the widget's code) stays usable (default 24 h, at most 30 days). */
    code_ttl: z.coerce.number().int().min(60).max(2592000).default(86400),
  })
  .strict()

export type RecorderConfig = z.infer<typeof recorderConfigSchema>
