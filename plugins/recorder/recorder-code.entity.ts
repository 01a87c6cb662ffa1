import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { User } from '../identity/index.js'

/**
 * One delivered recorder widget: the identifier in its code, bound to the user who asked for
 * it, usable once until it expires.
 */
export interface RecorderCode {
  id: number
  /**
   * SHA-256 (hex) of the identifier: the identifier is a credential (it opens upload links),
   * so a copy of the database does not give usable ones.
   */
  codeHash: string
  user: User
  createdAt: Date
  expiresAt: Date
  /** When it was used; null while unused. */
  usedAt: Date | null
}

export const RecorderCodeEntity = new EntitySchema<RecorderCode>({
  name: 'RecorderCode',
  tableName: 'recorder_codes',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    codeHash: { type: 'string', length: 64, unique: true },
    user: cascadingReference('User'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    expiresAt: { type: 'datetime', index: true },
    usedAt: { type: 'datetime', nullable: true },
  },
})
