import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'

/** One event for one webhook: its body is fixed once, every attempt sends the same bytes and `webhook-id`. */
export interface WebhookMessage {
  id: number
  webhookId: number
  /** `msg_` + random: the `webhook-id` header, stable across retries and redeliveries. */
  eventId: string
  type: string
  /** Events of one subject (`file:<slug>`, `resource:<slug>`) go out in order. */
  subject: string
  body: string
  state: 'pending' | 'delivered' | 'failed'
  attempts: number
  createdAt: Date
  updatedAt: Date
}

export const WebhookMessageEntity = new EntitySchema<WebhookMessage>({
  name: 'WebhookMessage',
  tableName: 'webhook_messages',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    webhookId: { ...cascadingReference('Webhook'), mapToPk: true, fieldName: 'webhook_id' },
    eventId: { type: 'string', length: 40, unique: true },
    type: { type: 'string', length: 64 },
    subject: { type: 'string', length: 255 },
    body: { type: 'text' },
    state: { type: 'string', length: 16 },
    attempts: { type: 'integer' },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    updatedAt: { type: 'datetime', onCreate: () => new Date() },
  },
  indexes: [{ properties: ['webhookId', 'subject', 'state', 'id'] }, { properties: ['createdAt'] }],
})
