import type { Reader, Row } from '../../src/kernel/index.js'

/** A webhook as the answers and deliveries see it (never its secrets). */
export interface WebhookView {
  id: number
  /** What addresses it: `/webhook/<publicId>`. */
  publicId: string
  platformId: number
  platformSlug: string
  url: string
  events: string[]
  description: string
  enabled: boolean
  disabledReason: string | null
  failingSince: Date | null
  createdAt: Date
  updatedAt: Date
}

/** One attempt to deliver an event, as `GET /webhook/<id>/deliveries` lists it. */
export interface DeliveryView {
  id: number
  publicId: string
  eventId: string
  type: string
  attempt: number
  status: number | null
  error: string | null
  durationMs: number
  response: string | null
  createdAt: Date
  /** The event's state now: pending, delivered or failed. */
  state: string
}

const toDate = (value: unknown): Date => new Date(value as string | number)
const dateOrNull = (value: unknown): Date | null => (value == null ? null : toDate(value))

/** The subscribed events as stored (comma-separated) → a list. */
export const eventList = (events: string): string[] => events.split(',').filter(Boolean)

const SELECT = `select w.id, w.public_id, w.platform_id, p.slug as platform_slug, w.url, w.events, w.description, w.enabled,
    w.disabled_reason, w.failing_since, w.created_at, w.updated_at
  from webhooks w join platforms p on p.id = w.platform_id`

const toView = (row: Row): WebhookView => ({
  id: Number(row.id),
  publicId: String(row.public_id),
  platformId: Number(row.platform_id),
  platformSlug: String(row.platform_slug),
  url: String(row.url),
  events: eventList(String(row.events)),
  description: String(row.description ?? ''),
  enabled: Boolean(row.enabled),
  disabledReason: row.disabled_reason == null ? null : String(row.disabled_reason),
  failingSince: dateOrNull(row.failing_since),
  createdAt: toDate(row.created_at),
  updatedAt: toDate(row.updated_at),
})

const DELIVERY = `select d.id, d.public_id, m.event_id, m.type, m.state, d.attempt, d.status, d.error, d.duration_ms, d.response,
    d.created_at from webhook_deliveries d join webhook_messages m on m.id = d.message_id`

const toDelivery = (row: Row): DeliveryView => ({
  id: Number(row.id),
  publicId: String(row.public_id),
  eventId: String(row.event_id),
  type: String(row.type),
  attempt: Number(row.attempt),
  status: row.status == null ? null : Number(row.status),
  error: row.error == null ? null : String(row.error),
  durationMs: Number(row.duration_ms),
  response: row.response == null ? null : String(row.response),
  createdAt: toDate(row.created_at),
  state: String(row.state),
})

/** Reads of webhooks and their deliveries (committed data). */
export const webhookQueries = {
  async byId(reader: Reader, id: number): Promise<WebhookView | undefined> {
    const row = await reader.one(`${SELECT} where w.id = ?`, [id])
    return row && toView(row)
  },
  async byPublicId(reader: Reader, publicId: string): Promise<WebhookView | undefined> {
    const row = await reader.one(`${SELECT} where w.public_id = ?`, [publicId])
    return row && toView(row)
  },
  count(reader: Reader, platformId: number): Promise<number> {
    return reader.count('select count(*) as n from webhooks where platform_id = ?', [platformId])
  },
  /** One page of a platform's webhooks, oldest first. */
  async page(reader: Reader, platformId: number, offset: number, limit: number): Promise<WebhookView[]> {
    const rows = await reader.all(`${SELECT} where w.platform_id = ? order by w.id limit ? offset ?`, [
      platformId,
      limit,
      offset,
    ])
    return rows.map(toView)
  },
  /** The enabled webhooks of a platform with what they subscribe to: what an event is matched against. */
  async enabledOf(reader: Reader, platformId: number): Promise<{ id: number; events: string[] }[]> {
    // Filtered here: booleans are bound differently by the two databases' drivers.
    const rows = await reader.all('select id, events, enabled from webhooks where platform_id = ? order by id', [
      platformId,
    ])
    return rows
      .filter((row) => Boolean(row.enabled))
      .map((row) => ({ id: Number(row.id), events: eventList(String(row.events)) }))
  },
  countDeliveries(reader: Reader, webhookId: number): Promise<number> {
    return reader.count('select count(*) as n from webhook_deliveries where webhook_id = ?', [webhookId])
  },
  /** One page of a webhook's delivery attempts, newest first. */
  async deliveries(reader: Reader, webhookId: number, offset: number, limit: number): Promise<DeliveryView[]> {
    const rows = await reader.all(`${DELIVERY} where d.webhook_id = ? order by d.id desc limit ? offset ?`, [
      webhookId,
      limit,
      offset,
    ])
    return rows.map(toDelivery)
  },
  /** A delivery of a webhook, by its public id, with its event's row id (for a redelivery). */
  async delivery(
    reader: Reader,
    webhookId: number,
    publicId: string,
  ): Promise<(DeliveryView & { messageId: number }) | undefined> {
    const row = await reader.one(
      `${DELIVERY.replace('select d.id', 'select d.id, d.message_id')} where d.webhook_id = ? and d.public_id = ?`,
      [webhookId, publicId],
    )
    return row && { ...toDelivery(row), messageId: Number(row.message_id) }
  },
}
