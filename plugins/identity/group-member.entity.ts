import { EntitySchema } from '@mikro-orm/core'
import { cascadingReference } from '../../src/kernel/index.js'
import type { Group } from './group.entity.js'
import type { User } from './user.entity.js'

/** A user's membership of a group (members are listed in the order they joined). */
export interface GroupMember {
  id: number
  group: Group
  user: User
  createdAt: Date
}

export const GroupMemberEntity = new EntitySchema<GroupMember>({
  name: 'GroupMember',
  tableName: 'group_members',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    group: cascadingReference('Group'),
    user: cascadingReference('User'),
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
  uniques: [{ properties: ['group', 'user'] }],
})
