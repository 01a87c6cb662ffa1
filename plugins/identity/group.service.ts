import { UniqueConstraintViolationException } from '@mikro-orm/core'
import { type EntityManager, type Page, freeSlug, retryOnConflict, transaction } from '../../src/kernel/index.js'
import { PlatformEntity } from '../platforms/index.js'
import { AccessEntity } from './access.entity.js'
import { GroupMemberEntity } from './group-member.entity.js'
import { type Group, GroupEntity } from './group.entity.js'
import type { User } from './user.entity.js'

/** Creates a group on a platform; its slug is the first free one for the name. */
export function createGroup(em: EntityManager, platformId: number, name: string): Promise<Group> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const platform = await tx.findOneOrFail(PlatformEntity, { id: platformId })
      const group = tx.create(GroupEntity, {
        slug: await freeSlug(tx, GroupEntity, name),
        name,
        platform,
        createdAt: new Date(),
      })
      await tx.flush()
      return group
    }),
  )
}

/** Deletes a group with its memberships and its accesses, in one transaction. */
export async function deleteGroup(em: EntityManager, group: Group): Promise<void> {
  await transaction(em, async (tx) => {
    // The foreign keys cascade too; deleting explicitly keeps the outcome independent of them.
    await tx.nativeDelete(GroupMemberEntity, { group: group.id })
    await tx.nativeDelete(AccessEntity, { group: group.id })
    await tx.nativeDelete(GroupEntity, { id: group.id })
  })
}

/** Makes the user a member; already being one is not an error (the request's outcome holds). */
export async function addMember(em: EntityManager, group: Group, user: User): Promise<void> {
  try {
    await transaction(em, async (tx) => {
      if ((await tx.count(GroupMemberEntity, { group: group.id, user: user.id })) > 0) return
      tx.create(GroupMemberEntity, { group: group.id, user: user.id, createdAt: new Date() })
      await tx.flush()
    })
  } catch (error) {
    // A concurrent request added the same member first: the membership exists, as asked.
    if (!(error instanceof UniqueConstraintViolationException)) throw error
  }
}

/** Removes the user from the group; false when they were not a member. */
export async function removeMember(em: EntityManager, group: Group, user: User): Promise<boolean> {
  return (await em.nativeDelete(GroupMemberEntity, { group: group.id, user: user.id })) > 0
}

/** How many members the group has. */
export function memberCount(em: EntityManager, group: Group): Promise<number> {
  return em.count(GroupMemberEntity, { group: group.id })
}

/** One page of the group's members, in the order they joined. */
export async function memberPage(em: EntityManager, group: Group, page: Page): Promise<User[]> {
  const members = await em.find(
    GroupMemberEntity,
    { group: group.id },
    { populate: ['user'], orderBy: { id: 'asc' }, offset: page.offset, limit: page.limit },
  )
  return members.map((member) => member.user)
}

/** How many groups a platform has. */
export function groupCount(em: EntityManager, platformId: number): Promise<number> {
  return em.count(GroupEntity, { platform: platformId })
}

/** One page of a platform's groups, oldest first. */
export function groupPage(em: EntityManager, platformId: number, page: Page): Promise<Group[]> {
  return em.find(
    GroupEntity,
    { platform: platformId },
    { orderBy: { id: 'asc' }, offset: page.offset, limit: page.limit },
  )
}
