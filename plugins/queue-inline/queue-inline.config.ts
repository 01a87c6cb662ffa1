import { z } from 'zod'

/** Settings of the inline queue (the `queue-inline` section). */
export const queueInlineConfigSchema = z
  .object({
    /** Seconds between two looks for due jobs; a job this process queues starts at once anyway. */
    poll_interval: z.number().min(0.01).max(60).default(0.5),
    /**
     * Seconds a running job's lease lasts, renewed every third of it while the job runs. Once
     * it has expired, any process takes the job back: the longest a crashed process's jobs wait.
     */
    lease: z.number().min(1).max(3600).default(30),
    /** Seconds succeeded jobs are kept for `mediactl jobs list`; 0: forever. Failed jobs are kept. */
    keep_succeeded: z.number().int().min(0).default(604800),
    /**
     * Whether `mediactl serve` runs jobs. false leaves them to `mediactl worker` processes on the
     * same database (encoding off the serving processes, on one machine or on PostgreSQL).
     */
    consume_in_serve: z.boolean().default(true),
  })
  .strict()

export type QueueInlineConfig = z.infer<typeof queueInlineConfigSchema>
