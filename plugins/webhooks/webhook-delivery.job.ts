import {
  type EntityManager,
  type JobHandler,
  type JobTypeOptions,
  PermanentJobError,
  transaction,
} from '../../src/kernel/index.js'
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js'
import { type Webhook, WebhookEntity } from './webhook.entity.js'
import { type WebhookMessage, WebhookMessageEntity } from './webhook-message.entity.js'
import type { DeliveryResult } from './webhook.metrics.js'
import { sendWebhook } from './webhook-send.js'
import { signedHeaders } from './webhook-signature.js'
import { PUBLIC_ID_LENGTH, signingSecrets } from './webhook.service.js'
import { randomToken } from '../../src/shared/secrets.js'
import type { WebhooksDeps } from './webhooks.deps.js'

/** The job type of one event's delivery (payload `{ message }`: the message's id). */
export const DELIVER_JOB = 'webhooks.deliver'

/** Earlier events of a subject sent before this one, at most, per run. */
const EARLIER_PER_RUN = 20

/**
 * Delivers one event to its webhook: POSTs its body, signed, and records the attempt. A
 * failure throws, and the job runs again on the `webhooks.retry_delays` schedule with the same
 * `webhook-id`; after the last attempt the event is given up (`onState`). Events of one subject
 * go out in order: earlier ones still pending are sent first, and a failing one holds the later
 * ones back, but not past their own last attempt.
 */
export function deliveryJob(deps: WebhooksDeps): JobHandler {
  return async (job) => {
    const id = Number(job.payload.message)
    if (!Number.isSafeInteger(id)) throw new PermanentJobError('the job names no webhook event')
    const em = deps.em()
    const message = await em.findOne(WebhookMessageEntity, { id })
    // Delivered meanwhile (by the run of a later event of its subject), given up, or its webhook deleted.
    if (!message || message.state !== 'pending') return
    const webhook = await em.findOne(WebhookEntity, { id: message.webhookId })
    if (!webhook) return
    // A test is sent whatever the state: it is how an administrator checks a receiver before enabling it again.
    if (!webhook.enabled && message.type !== 'webhook.test') {
      if (await giveUp(em, message.id)) deps.metrics.gaveUp()
      return
    }
    const earlier = await em.find(
      WebhookMessageEntity,
      { webhookId: webhook.id, subject: message.subject, state: 'pending', id: { $lt: message.id } },
      { orderBy: { id: 'asc' }, limit: EARLIER_PER_RUN + 1 },
    )
    const last = job.attempt >= job.maxAttempts
    for (const before of earlier.slice(0, EARLIER_PER_RUN)) {
      const reason = await attempt(deps, webhook, before)
      if (reason && !last) {
        throw new Error(`the earlier event ${before.eventId} of ${message.subject} was not delivered (${reason})`)
      }
    }
    // A longer backlog goes on in the next runs: this event waits for it, but not past its own last attempt.
    if (earlier.length > EARLIER_PER_RUN && !last) {
      throw new Error(`more than ${EARLIER_PER_RUN} earlier events of ${message.subject} are still pending`)
    }
    const reason = await attempt(deps, webhook, message)
    if (reason) throw new Error(reason)
  }
}

/** Gives up the event of a job that failed for good or was cancelled (in the job's transaction). */
export function deliveryState(deps: WebhooksDeps): JobTypeOptions {
  const { metrics } = deps
  return {
    retryDelays: deps.config.retry_delays.map((seconds) => seconds * 1000),
    async onState({ job, em }) {
      const id = Number(job.payload.message)
      if (!Number.isSafeInteger(id)) return
      if (job.state === 'failed' || job.state === 'cancelled') {
        if (await giveUp(em, id)) metrics.gaveUp()
      } else if (job.state === 'waiting' && job.attempts === 0) {
        // `mediactl jobs retry` on a given-up delivery: its event is pending again, so the run sends it.
        await em.nativeUpdate(
          WebhookMessageEntity,
          { id, state: 'failed' },
          { state: 'pending', updatedAt: new Date() },
        )
      }
    },
  }
}

async function giveUp(em: EntityManager, messageId: number): Promise<boolean> {
  const changed = await em.nativeUpdate(
    WebhookMessageEntity,
    { id: messageId, state: 'pending' },
    { state: 'failed', updatedAt: new Date() },
  )
  return changed > 0
}

// PostgreSQL cannot store a NUL in text: a receiver's answer may hold any bytes.
const storable = (text: string, max: number): string => text.replaceAll('\u0000', '\uFFFD').slice(0, max)

/** Sends one event and records the attempt; answers why it failed, or null when delivered. */
async function attempt(deps: WebhooksDeps, webhook: Webhook, message: WebhookMessage): Promise<string | null> {
  const now = new Date()
  const timestamp = Math.floor(now.getTime() / 1000)
  const outcome = await sendWebhook(
    {
      url: webhook.url,
      headers: signedHeaders(signingSecrets(webhook, now), message.eventId, timestamp, message.body),
      body: message.body,
      timeoutMs: deps.config.timeout * 1000,
      maxResponseBytes: deps.config.max_response_bytes,
    },
    { network: deps.network, allowPrivateNetworks: deps.config.allow_private_networks },
  )
  const status = outcome.status
  const delivered = status !== null && status >= 200 && status < 300
  const result: DeliveryResult = delivered
    ? 'delivered'
    : status !== null
      ? 'rejected'
      : outcome.refused
        ? 'refused'
        : 'unreachable'
  deps.metrics.attempted(result, outcome.durationMs / 1000)
  const reason = delivered ? null : status !== null ? `the receiver answered HTTP ${status}` : outcome.error!
  await transaction(deps.em(), async (tx) => {
    const current = await tx.findOne(WebhookMessageEntity, { id: message.id })
    if (!current) return
    current.attempts += 1
    if (delivered) current.state = 'delivered'
    current.updatedAt = now
    await tx.insert(WebhookDeliveryEntity, {
      publicId: randomToken(PUBLIC_ID_LENGTH),
      webhookId: webhook.id,
      messageId: message.id,
      attempt: current.attempts,
      status,
      error: outcome.error === null ? null : storable(outcome.error, 1024),
      durationMs: outcome.durationMs,
      response: outcome.body ? storable(outcome.body, deps.config.max_response_bytes) : null,
      createdAt: now,
    })
    if (await streak(deps, tx, webhook.id, delivered, reason, now)) deps.metrics.disabledOne()
    await tx.flush()
  })
  deps.log[delivered ? 'debug' : 'info'](
    { webhook: webhook.id, event: message.eventId, type: message.type, status, error: outcome.error },
    delivered ? 'webhook event delivered' : 'webhook delivery failed',
  )
  return reason
}

/**
 * Keeps a webhook's failing streak: a delivery ends it; a failure starts it, or, once it has
 * lasted `webhooks.disable_after`, disables the webhook, saying why. Answers whether it did.
 */
async function streak(
  deps: WebhooksDeps,
  tx: EntityManager,
  webhookId: number,
  delivered: boolean,
  reason: string | null,
  now: Date,
): Promise<boolean> {
  const webhook = await tx.findOne(WebhookEntity, { id: webhookId })
  if (!webhook) return false
  if (delivered) {
    if (webhook.failingSince) webhook.failingSince = null
    return false
  }
  if (!webhook.failingSince) {
    webhook.failingSince = now
    return false
  }
  if (!webhook.enabled || now.getTime() - webhook.failingSince.getTime() < deps.config.disable_after * 1000)
    return false
  webhook.enabled = false
  webhook.disabledReason = storable(
    `disabled on ${now.toISOString()}: deliveries failed since ${webhook.failingSince.toISOString()} ` +
      `without one succeeding (last: ${reason}); enable it again once the receiver answers`,
    1024,
  )
  webhook.updatedAt = now
  deps.log.warn({ webhook: webhook.id, since: webhook.failingSince }, 'webhook disabled: its deliveries keep failing')
  return true
}
