import { z } from 'zod'

/** The `console` section of the configuration (docs/configuration.md). */
export const consoleConfigSchema = z
  .object({
    /** Seconds a console session lasts without a request before it ends (default 8 h: a working day). */
    session_idle: z.coerce.number().int().min(60).max(2592000).default(28800),
    /** Seconds a console session lasts at most, however busy (default 7 days); then its user signs in again. */
    session_lifetime: z.coerce.number().int().min(300).max(31536000).default(604800),
    /** Seconds a sign-in link (`mediactl user sign-in-link`, the first `init`) stays usable (default 24 h). */
    sign_in_link_ttl: z.coerce.number().int().min(60).max(2592000).default(86400),
    /** Failed sign-ins of one account within `sign_in_window` after which its sign-ins answer 429 (default 10). */
    sign_in_failures_per_account: z.coerce.number().int().min(1).max(10000).default(10),
    /** Failed sign-ins from one address within `sign_in_window` after which its sign-ins answer 429 (default 50). */
    sign_in_failures_per_address: z.coerce.number().int().min(1).max(100000).default(50),
    /** Seconds over which failed sign-ins are counted (default 15 min); the 429's Retry-After is at most this. */
    sign_in_window: z.coerce.number().int().min(1).max(86400).default(900),
  })
  .strict()

export type ConsoleConfig = z.infer<typeof consoleConfigSchema>
