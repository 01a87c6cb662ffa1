import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'

/** A set of users of one platform; accesses granted to it apply to every member. */
export interface Group {
  id: number
  slug: string
  name: string
  platform: Platform
  createdAt: Date
}

export const GroupEntity = new EntitySchema<Group>({
  name: 'Group',
  tableName: 'user_groups',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    slug: { type: 'string', length: 64, unique: true },
    name: { type: 'string', length: 255 },
    platform: cascadingReference('Platform'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
})
