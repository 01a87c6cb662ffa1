import { EntitySchema } from '@mikro-orm/core'
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
    group: { kind: 'm:1', entity: 'Group', deleteRule: 'cascade', updateRule: 'cascade', index: true },
    user: { kind: 'm:1', entity: 'User', deleteRule: 'cascade', updateRule: 'cascade', index: true },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
  uniques: [{ properties: ['group', 'user'] }],
})
