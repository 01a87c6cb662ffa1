import { EntitySchema, JsonType } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'

/** A named set of role flags, granted on objects through accesses. */
export interface Role {
  id: number
  slug: string
  name: string
  /** Granted flags as `model.action` strings (for example `stream.edit`). */
  permissions: string[]
  platform: Platform
  createdAt: Date
}

export const RoleEntity = new EntitySchema<Role>({
  name: 'Role',
  tableName: 'roles',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    permissions: { type: JsonType },
    platform: cascadingReference('Platform'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
