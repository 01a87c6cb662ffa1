import { HttpError, type HttpContext, type Router, notFound, reply, transaction } from '../../src/kernel/index.js'
import { platformFromPath } from '../platforms/index.js'
import { WebhookMessageEntity } from './webhook-message.entity.js'
import { MANAGES, PUBLIC_ID, webhookFromPath } from './webhook.lookup.js'
import { publish } from './webhook-publish.service.js'
import { webhookQueries } from './webhook.queries.js'
import { createWebhook, deleteWebhook, readCheckedWebhook, rotateSecret, updateWebhook } from './webhook.service.js'
import { SUBSCRIBABLE_EVENTS } from './webhook-events.js'
import {
  deliveryListXml,
  deliveryXml,
  eventTypesXml,
  queuedEventXml,
  webhookListXml,
  webhookXml,
} from './webhook.xml.js'
import type { WebhooksDeps } from './webhooks.deps.js'

const ADMINS = 'platform.edit on the platform (its administrators, and installation administrators)'
const OF_WEBHOOK = "platform.edit on the webhook's platform (404 for a webhook of a platform the caller does not see)"

async function info(c: HttpContext, id: number, status: number, secret?: string) {
  const webhook = await webhookQueries.byId(c.reader, id)
  if (!webhook) throw notFound('The webhook was deleted.')
  return reply.xml(status, webhookXml(c.links, webhook, secret))
}

/** The delivery named by `:delivery`, of the webhook in the path. */
async function deliveryFromPath(c: HttpContext, webhookId: number) {
  const raw = c.param('delivery')
  const delivery = PUBLIC_ID.test(raw) ? await webhookQueries.delivery(c.reader, webhookId, raw) : undefined
  if (!delivery) throw notFound(`No delivery "${raw}" of this webhook.`)
  return delivery
}

/**
 * Webhooks, an extension of the contract (docs/webhooks.md): a platform's subscriptions to its
 * events, managed by its administrators; their secrets, tests, deliveries and redeliveries.
 */
export function webhookRoutes(r: Router, deps: WebhooksDeps): void {
  r.get(
    '/platform/:platform/webhooks',
    async (c) => {
      const platform = await platformFromPath(c, MANAGES)
      const reader = c.reader
      const items = await c.list(await webhookQueries.count(reader, platform.id), (page) =>
        webhookQueries.page(reader, platform.id, page.offset, page.limit),
      )
      return reply.xml(200, webhookListXml(c.links, platform.slug, items))
    },
    { permission: ADMINS },
  )

  r.post(
    '/platform/:platform/webhooks',
    async (c) => {
      const platform = await platformFromPath(c, MANAGES)
      const input = await readCheckedWebhook(c.fields(await c.form(), 'create'), deps.policy)
      const { id, secret } = await createWebhook(c.em, platform.id, {
        ...input,
        url: input.url!,
        events: input.events!,
      })
      return info(c, id, 201, secret)
    },
    { permission: ADMINS },
  )

  r.get(
    '/platform/:platform/webhook_event_types',
    async (c) => {
      // Asked of a platform, with the rights of its webhooks: a client offers the choice where it may use it.
      const platform = await platformFromPath(c, MANAGES)
      const types = await c.list(SUBSCRIBABLE_EVENTS.length, async (page) =>
        SUBSCRIBABLE_EVENTS.slice(page.offset, page.offset + page.limit),
      )
      return reply.xml(200, eventTypesXml(c.links, platform.slug, types))
    },
    { permission: ADMINS },
  )

  r.get('/webhook/:webhook', async (c) => info(c, (await webhookFromPath(c)).id, 200), { permission: OF_WEBHOOK })

  r.put(
    '/webhook/:webhook',
    async (c) => {
      const webhook = await webhookFromPath(c)
      const input = await readCheckedWebhook(c.fields(await c.form(), 'update'), deps.policy)
      await updateWebhook(c.em, webhook.id, input)
      return info(c, webhook.id, 200)
    },
    { permission: OF_WEBHOOK },
  )

  r.delete(
    '/webhook/:webhook',
    async (c) => {
      await deleteWebhook(c.em, (await webhookFromPath(c)).id)
      return reply.noContent()
    },
    { permission: OF_WEBHOOK },
  )

  r.post(
    '/webhook/:webhook/rotate_secret',
    async (c) => {
      const webhook = await webhookFromPath(c)
      const secret = await rotateSecret(c.em, webhook.id, deps.config.secret_overlap)
      return info(c, webhook.id, 200, secret)
    },
    { permission: OF_WEBHOOK },
  )

  r.post(
    '/webhook/:webhook/test',
    async (c) => {
      const webhook = await webhookFromPath(c)
      const [eventId] = await transaction(c.em, (tx) =>
        publish(
          deps.publisher,
          tx,
          {
            type: 'webhook.test',
            platformId: webhook.platformId,
            subject: `webhook:${webhook.id}`,
            data: {
              platform: { slug: webhook.platformSlug, href: c.links.url('platform', webhook.platformSlug) },
              webhook: { id: webhook.publicId, href: c.links.url('webhook', webhook.publicId) },
            },
          },
          webhook.id,
        ),
      )
      return reply.xml(202, queuedEventXml(c.links, webhook.publicId, eventId!, 'webhook.test'))
    },
    { permission: OF_WEBHOOK + '; sent even when the webhook is disabled or not subscribed to webhook.test' },
  )

  r.get(
    '/webhook/:webhook/deliveries',
    async (c) => {
      const webhook = await webhookFromPath(c)
      const reader = c.reader
      const items = await c.list(await webhookQueries.countDeliveries(reader, webhook.id), (page) =>
        webhookQueries.deliveries(reader, webhook.id, page.offset, page.limit),
      )
      return reply.xml(200, deliveryListXml(c.links, webhook.publicId, items))
    },
    { permission: OF_WEBHOOK },
  )

  r.get(
    '/webhook/:webhook/deliveries/:delivery',
    async (c) => {
      const webhook = await webhookFromPath(c)
      return reply.xml(200, deliveryXml(c.links, webhook.publicId, await deliveryFromPath(c, webhook.id)))
    },
    { permission: OF_WEBHOOK },
  )

  r.post(
    '/webhook/:webhook/deliveries/:delivery/redeliver',
    async (c) => {
      const webhook = await webhookFromPath(c)
      const delivery = await deliveryFromPath(c, webhook.id)
      if (!webhook.enabled) {
        throw new HttpError(409, 'The webhook is disabled: enable it first (PUT /webhook/<id> with enabled=1).')
      }
      await transaction(c.em, async (tx) => {
        // Pending again, with every attempt of the schedule; the same event id, so receivers can tell it is a repeat.
        await tx.nativeUpdate(
          WebhookMessageEntity,
          { id: delivery.messageId },
          { state: 'pending', updatedAt: new Date() },
        )
        await deps.publisher.queue(tx, { id: delivery.messageId, eventId: delivery.eventId })
      })
      return reply.xml(202, queuedEventXml(c.links, webhook.publicId, delivery.eventId, delivery.type))
    },
    { permission: OF_WEBHOOK + '; 409 while the webhook is disabled' },
  )
}
