import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'
import type { Group } from './group.entity.js'
import type { Role } from './role.entity.js'
import type { User } from './user.entity.js'

/**
 * A role granted to a user or a group on one object (platform, media, stream, resource).
 * The object is addressed by kind and id: its table belongs to another plugin, which
 * announces deletions with the `authz.objects-deleted` event.
 */
export interface Access {
  id: number
  /** Opaque identifier shown at the end of the access's href. */
  publicId: string
  /** The subject: exactly one of user and group is set. */
  user: User | null
  group: Group | null
  /** Kind of the object (`platform`, `media`, `stream`, `resource`). */
  objectKind: string
  objectId: number
  role: Role
  /** The platform of subject, object and role alike. */
  platform: Platform
  createdAt: Date
}

export const AccessEntity = new EntitySchema<Access>({
  name: 'Access',
  tableName: 'accesses',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    publicId: { type: 'string', length: 16, unique: true },
    user: cascadingReference('User', { nullable: true }),
    group: cascadingReference('Group', { nullable: true }),
    objectKind: { type: 'string', length: 32 },
    objectId: { type: 'integer' },
    role: { kind: 'm:1', entity: 'Role', deleteRule: 'restrict', updateRule: 'cascade', index: true },
    platform: cascadingReference('Platform'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
  indexes: [{ properties: ['objectKind', 'objectId'] }],
})
