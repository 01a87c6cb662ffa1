import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'

/** A platform's subscription: where its events are POSTed, signed with its secret. */
export interface Webhook {
  id: number
  /** What addresses it (`/webhook/<publicId>`): 16 random letters and digits. */
  publicId: string
  /** The platform whose events it receives (deleting the platform deletes it). */
  platformId: number
  /** https (or http where allowed); checked against private networks at creation and every delivery. */
  url: string
  /** Subscribed event types, comma-separated; `*` for all but the opt-in ones. */
  events: string
  description: string
  enabled: boolean
  /** `whsec_` + base64 of 32 random bytes: shown once, at creation and rotation. */
  secret: string
  previousSecret: string | null
  previousSecretUntil: Date | null
  disabledReason: string | null
  failingSince: Date | null
  createdAt: Date
  updatedAt: Date
}

export const WebhookEntity = new EntitySchema<Webhook>({
  name: 'Webhook',
  tableName: 'webhooks',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    publicId: { type: 'string', length: 16, unique: true },
    // The id itself, not an entity: nothing here loads a platform.
    platformId: { ...cascadingReference('Platform'), mapToPk: true, fieldName: 'platform_id' },
    url: { type: 'string', length: 2048 },
    events: { type: 'string', length: 1024 },
    description: { type: 'string', length: 1024 },
    enabled: { type: 'boolean' },
    secret: { type: 'string', length: 128 },
    previousSecret: { type: 'string', length: 128, nullable: true },
    previousSecretUntil: { type: 'datetime', nullable: true },
    disabledReason: { type: 'string', length: 1024, nullable: true },
    failingSince: { type: 'datetime', nullable: true },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    updatedAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
