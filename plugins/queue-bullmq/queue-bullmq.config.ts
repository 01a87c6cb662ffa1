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
    /** Name of the installation's queues: jobs of type `t` live in the BullMQ queue `<queue>/<t>`. */
    queue: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, '1 to 64 letters, digits, "_", "." or "-"')
      .default('jobs'),
    /** Whether `mediactl serve` runs jobs too (false: only `mediactl worker` processes do). */
    consume_in_serve: z.boolean().default(false),
    /** Seconds between two looks for due jobs by a consuming process (a finished run looks again at once). */
    poll_interval: z.number().min(0.01).max(60).default(0.5),
    /**
     * Seconds a running job's lock lasts (BullMQ's lockDuration), renewed every half of it while
     * the job runs. A crashed process's jobs are taken back once it expired, at the next stall check.
     */
    lease: z.number().min(1).max(3600).default(30),
    /**
     * Seconds between two stall checks (BullMQ's stalledInterval, one check per queue across all
     * consuming processes): a job whose lock expired is put back to waiting by the second check
     * after it, so a crashed worker's jobs run again within about `lease + 2 × stalled_interval`.
     */
    stalled_interval: z.number().min(1).max(3600).default(30),
    /** Seconds succeeded jobs are kept for `mediactl jobs list`; 0: forever. Failed jobs are kept. */
    keep_succeeded: z.number().int().min(0).default(604800),
  })
  .strict()

export type QueueBullmqConfig = z.infer<typeof queueBullmqConfigSchema>
