import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'

/** One attempt to deliver a message: what the receiver answered, or why nothing was. */
export interface WebhookDelivery {
  id: number
  /** What addresses it (`/webhook/<id>/deliveries/<publicId>`): 16 random letters and digits. */
  publicId: string
  webhookId: number
  messageId: number
  /** The message's attempt this was, from 1 (redeliveries go on counting). */
  attempt: number
  status: number | null
  error: string | null
  durationMs: number
  /** The start of the receiver's answer (webhooks.max_response_bytes). */
  response: string | null
  createdAt: Date
}

export const WebhookDeliveryEntity = new EntitySchema<WebhookDelivery>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    publicId: { type: 'string', length: 16, unique: true },
    webhookId: { ...cascadingReference('Webhook'), mapToPk: true, fieldName: 'webhook_id' },
    messageId: { ...cascadingReference('WebhookMessage'), mapToPk: true, fieldName: 'message_id' },
    attempt: { type: 'integer' },
    status: { type: 'integer', nullable: true },
    error: { type: 'string', length: 1024, nullable: true },
    durationMs: { type: 'integer', fieldName: 'duration_ms' },
    response: { type: 'text', nullable: true },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
