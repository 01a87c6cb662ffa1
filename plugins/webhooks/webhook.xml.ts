import { type LinkBuilder, type XmlNode, xml } from '../../src/kernel/index.js'
import { OPT_IN_EVENTS, type WebhookEventType, WEBHOOK_EVENTS } from './webhook-events.js'
import type { DeliveryView, WebhookView } from './webhook.queries.js'

/** The address of a webhook: `/webhook/<public id>`. */
export const webhookUrl = (links: LinkBuilder, publicId: string): string => links.url('webhook', publicId)

/**
 * A webhook (info, list entries, and the create, update and rotation answers): its fields, why it
 * was disabled, and the `platform` and `deliveries` links. `secret` is shown only when given:
 * in the answers of the creation and of a rotation, never again.
 */
export function webhookXml(links: LinkBuilder, w: WebhookView, secret?: string): XmlNode {
  return xml.el('webhook', { href: webhookUrl(links, w.publicId) }, [
    xml.str('id', w.publicId),
    xml.str('url', w.url),
    xml.el(
      'events',
      undefined,
      w.events.map((event) => xml.str('event', event)),
    ),
    xml.str('description', w.description),
    xml.flag('enabled', w.enabled),
    xml.str('disabled_reason', w.disabledReason),
    xml.date('failing_since', w.failingSince),
    xml.date('created_at', w.createdAt),
    xml.date('updated_at', w.updatedAt),
    ...(secret === undefined ? [] : [xml.str('secret', secret)]),
    xml.link('platform', links.url('platform', w.platformSlug)),
    xml.link('deliveries', links.url('webhook', w.publicId, 'deliveries')),
  ])
}

/** `GET /platform/<slug>/webhooks`: `webhooks` of `webhook` entries (no secrets). */
export function webhookListXml(links: LinkBuilder, platformSlug: string, items: WebhookView[]): XmlNode {
  return xml.el(
    'webhooks',
    { href: links.url('platform', platformSlug, 'webhooks') },
    items.map((w) => webhookXml(links, w)),
  )
}

/** One delivery attempt: the event, its type and state now, the attempt, what came back, how long it took. */
export function deliveryXml(links: LinkBuilder, webhookId: string, d: DeliveryView): XmlNode {
  return xml.el('delivery', { href: links.url('webhook', webhookId, 'deliveries', d.publicId) }, [
    xml.str('id', d.publicId),
    xml.str('event_id', d.eventId),
    xml.str('type', d.type),
    // The event's state now (pending, delivered, failed), not this attempt's: `status` and `error` say how it went.
    xml.str('event_state', d.state),
    xml.num('attempt', d.attempt),
    xml.num('status', d.status),
    xml.str('error', d.error),
    xml.num('duration', d.durationMs),
    xml.str('response', d.response),
    xml.date('created_at', d.createdAt),
    xml.link('redeliver', links.url('webhook', webhookId, 'deliveries', d.publicId, 'redeliver')),
  ])
}

/** `GET /webhook/<id>/deliveries`: newest first. */
export function deliveryListXml(links: LinkBuilder, webhookId: string, items: DeliveryView[]): XmlNode {
  return xml.el(
    'deliveries',
    { href: links.url('webhook', webhookId, 'deliveries') },
    items.map((d) => deliveryXml(links, webhookId, d)),
  )
}

/** The answer of `test` and `redeliver` (202): the event queued for delivery. */
export function queuedEventXml(links: LinkBuilder, webhookId: string, eventId: string, type: string): XmlNode {
  return xml.el('webhook_event', { href: links.url('webhook', webhookId, 'deliveries') }, [
    xml.str('event_id', eventId),
    xml.str('type', type),
    xml.str('state', 'pending'),
  ])
}

/**
 * `GET /platform/<slug>/webhook_event_types`: the event types a webhook may subscribe to, each with what it announces
 * and whether `*` includes it (decision 0264).
 */
export function eventTypesXml(links: LinkBuilder, platformSlug: string, types: WebhookEventType[]): XmlNode {
  return xml.el(
    'webhook_event_types',
    { href: links.url('platform', platformSlug, 'webhook_event_types') },
    types.map((type) =>
      xml.el('event_type', undefined, [
        xml.str('name', type),
        xml.str('description', WEBHOOK_EVENTS[type]),
        xml.flag('in_all', !OPT_IN_EVENTS.has(type)),
      ]),
    ),
  )
}
