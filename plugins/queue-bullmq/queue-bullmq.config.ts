import { z } from 'zod'

/** Settings of the Redis queue (the `queue-bullmq` section). */
export const queueBullmqConfigSchema = z
  .object({
    /** Redis URL (redis://host:port/db or rediss://...); empty: `redis_url` (MEDIACTL_REDIS_URL). */
    url: z.union([z.literal(''), z.string().regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL')]).default(''),
    /**
     * BullMQ's key prefix: every key starts with `<prefix>:`. Installations sharing one Redis
     * need different prefixes (or databases); wrap it in braces (`{mediactl}`) for Redis Cluster.
     */
    prefix: z
      .string()
      .regex(/^[^\s]{1,64}$/, '1 to 64 characters, no spaces')
      .refine((value) => !value.endsWith(':'), 'without a trailing ":" (BullMQ adds it)')
      .default('mediactl'),
    /** Name of the installation's BullMQ queue (signals of every job type). */
    queue: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, '1 to 64 letters, digits, "_", "." or "-"')
      .default('jobs'),
    /** Whether `mediactl serve` runs jobs too (false: only `mediactl worker` processes do). */
    consume_in_serve: z.boolean().default(false),
    /**
     * Seconds between two stall checks (BullMQ's stalledInterval): a signal whose worker died
     * goes back to waiting. The job itself is taken back through its lease in the database
     * (`jobs.lease`), within about a second of its expiry, whatever this says.
     */
    stalled_interval: z.number().min(1).max(3600).default(30),
    /** No use any more (signals are delivered at once); accepted (and ignored, with a warning) for older files. */
    poll_interval: z.number().optional(),
    /** Moved to `jobs.lease`; accepted (and ignored, with a warning) so that older files still load. */
    lease: z.number().optional(),
    /** Moved to `jobs.keep_finished`; accepted (and ignored, with a warning) so that older files still load. */
    keep_succeeded: z.number().optional(),
  })
  .strict()

export type QueueBullmqConfig = z.infer<typeof queueBullmqConfigSchema>

/** Keys that moved to the kernel's `jobs` section (or lost their use: BullMQ delivers, nothing polls). */
export const MOVED_KEYS = {
  poll_interval: 'nothing (signals are delivered at once)',
  lease: 'jobs.lease',
  keep_succeeded: 'jobs.keep_finished',
}
