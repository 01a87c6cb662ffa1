import { z } from 'zod'

/** Settings of the inline queue (the `queue-inline` section). */
export const queueInlineConfigSchema = z
  .object({
    /** Seconds between two looks for due jobs; a job this process queues starts at once anyway. */
    poll_interval: z.number().min(0.01).max(60).default(0.5),
    /**
     * Whether `mediactl serve` runs jobs. false leaves them to `mediactl worker` processes on the
     * same database (encoding off the serving processes, on one machine or on PostgreSQL).
     */
    consume_in_serve: z.boolean().default(true),
    /** Moved to `jobs.lease`; accepted (and ignored, with a warning) so that older files still load. */
    lease: z.number().optional(),
    /** Moved to `jobs.keep_finished`; accepted (and ignored, with a warning) so that older files still load. */
    keep_succeeded: z.number().optional(),
  })
  .strict()

export type QueueInlineConfig = z.infer<typeof queueInlineConfigSchema>

/** Keys that moved to the kernel's `jobs` section. */
export const MOVED_KEYS = { lease: 'jobs.lease', keep_succeeded: 'jobs.keep_finished' }
