import { z } from 'zod'

const seconds = (min: number) => z.coerce.number().int().min(min)

/** The `webhooks` section of the configuration (docs/configuration.md, docs/webhooks.md). */
export const webhooksConfigSchema = z
  .object({
    /**
     * Lets webhook URLs resolve to loopback, private, link-local, unique-local and metadata
     * addresses (and use plain http): for a receiver inside the operator's own network. Off, such
     * URLs are refused at creation and at every delivery (after DNS resolution).
     */
    allow_private_networks: z.boolean().default(false),
    /** Lets webhook URLs use plain http to public addresses (https only otherwise). */
    allow_http: z.boolean().default(false),
    /**
     * Seconds to wait before each retry of a failed delivery, in order (±20 % jitter); after the
     * last one the delivery is given up. Default: 5 s, 30 s, 2 min, 10 min, 1 h, 6 h.
     */
    retry_delays: z.array(seconds(1)).min(1).max(20).default([5, 30, 120, 600, 3600, 21600]),
    /** Seconds a delivery may take (connect, send, answer) before it counts as failed. */
    timeout: seconds(1).max(300).default(10),
    /** Seconds the previous secret keeps signing (a second signature) after a rotation (default 24 h). */
    secret_overlap: seconds(0).default(86400),
    /** Seconds of failing deliveries, with none succeeding, after which a webhook is disabled (default 5 days). */
    disable_after: seconds(60).default(432000),
    /** Bytes of a receiver's answer kept with each delivery (the rest is not read). */
    max_response_bytes: z.coerce.number().int().min(0).max(65536).default(4096),
    /** Seconds between two `file.encoding_progress` events of one file (they are opt-in). */
    progress_interval: seconds(1).default(5),
    /** Seconds events and their deliveries stay listed; older ones go with `mediactl purge` (default 30 days). */
    keep_deliveries: seconds(3600).default(2592000),
  })
  .strict()

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>
