import { BigIntType, EntitySchema } from '@mikro-orm/core'
import type { TimestampDialect } from '../../src/kernel/index.js'

/** A tenant: users, media and files live in exactly one platform. */
export interface Platform {
  id: number
  /** Generated from the name at creation; never changes. */
  slug: string
  name: string
  /** Most users the platform may hold; 0 is unlimited. */
  maxUsers: number
  /** Most bytes the platform's files may use; 0 is unlimited. */
  maxSpace: number
  /** How date-times are answered to this platform's users; null: the installation's `api.timestamps`. */
  timestamps: TimestampDialect | null
  createdAt: Date
}

export const PlatformEntity = new EntitySchema<Platform>({
  name: 'Platform',
  tableName: 'platforms',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    maxUsers: { type: 'integer' },
    maxSpace: { type: new BigIntType('number') },
    timestamps: { type: 'string', length: 16, nullable: true },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
