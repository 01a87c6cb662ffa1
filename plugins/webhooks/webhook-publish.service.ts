import { type EntityManager, type Reader, afterCommit, transactionReader } from '../../src/kernel/index.js'
import { type WebhookEventType, subscribes } from './webhook-events.js'
import { WebhookMessageEntity } from './webhook-message.entity.js'
import { newEventId } from './webhook-signature.js'

/** An event as the plugins' changes announce it, before it is matched against the subscriptions. */
export interface WebhookEvent {
  type: WebhookEventType
  platformId: number
  /** What it is about (`file:<slug>`): the events of one subject reach a webhook in order. */
  subject: string
  /** Slugs and hrefs, never secrets. */
  data: Record<string, unknown>
}

/** What publishing needs: the subscriptions of a platform and the delivery queue. */
export interface Publisher {
  /** The enabled webhooks of a platform and what they subscribe to (kept per process; else read with `reader`). */
  subscribers(platformId: number, reader: Reader): Promise<{ id: number; events: string[] }[]>
  /** Queues the delivery of a recorded message in `em`'s transaction (the outbox). */
  queue(em: EntityManager, message: { id: number; eventId: string }): Promise<unknown>
  /** Counts a recorded event, by type (metrics). */
  recorded(type: string): void
}

/**
 * Records `event` for every enabled webhook of its platform that subscribes to it (`only`: for
 * that webhook alone, subscribed or not, as `POST /webhook/<id>/test` does), and queues each
 * delivery, all in `em`'s transaction: the event exists if and only if what it announces was
 * committed, and a crash after the commit leaves its deliveries queued. Answers the event ids.
 */
export async function publish(
  publisher: Publisher,
  em: EntityManager,
  event: WebhookEvent,
  only?: number,
): Promise<string[]> {
  const webhooks =
    only !== undefined
      ? [{ id: only }]
      : (await publisher.subscribers(event.platformId, transactionReader(em))).filter((webhook) =>
          subscribes(webhook.events, event.type),
        )
  if (!webhooks.length) return []
  const now = new Date()
  const body = JSON.stringify({ type: event.type, timestamp: now.toISOString(), data: event.data })
  const ids: string[] = []
  for (const webhook of webhooks) {
    const eventId = newEventId()
    // A plain insert: the caller's pending changes are its own to flush.
    const id = (await em.insert(WebhookMessageEntity, {
      webhookId: webhook.id,
      eventId,
      type: event.type,
      subject: event.subject,
      body,
      state: 'pending',
      attempts: 0,
      createdAt: now,
      updatedAt: now,
    })) as number
    await publisher.queue(em, { id: Number(id), eventId })
    // Counted once committed: a change rolled back announced nothing.
    afterCommit(em, () => publisher.recorded(event.type))
    ids.push(eventId)
  }
  return ids
}
