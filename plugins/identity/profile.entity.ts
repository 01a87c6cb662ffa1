import { BigIntType, EntitySchema, JsonType } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'

/** A platform-level permission set with a storage quota; every user has exactly one. */
export interface Profile {
  id: number
  slug: string
  name: string
  /** Bytes the user's files may use; 0 is unlimited. */
  quota: number
  /** Granted flags as `model.action` strings (for example `file.create`). */
  permissions: string[]
  platform: Platform
  createdAt: Date
}

export const ProfileEntity = new EntitySchema<Profile>({
  name: 'Profile',
  tableName: 'profiles',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    quota: { type: new BigIntType('number') },
    permissions: { type: JsonType },
    platform: cascadingReference('Platform'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
