import { ForeignKeyConstraintViolationException } from '@mikro-orm/core'
import {
  type Authz,
  type EntityManager,
  type Page,
  type Principal,
  forbidden,
  freeSlug,
  invalid,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { PlatformEntity } from '../platforms/index.js'
import { AccessEntity } from './access.entity.js'
import { type Role, RoleEntity } from './role.entity.js'

/** Creates a role on a platform with already-checked flags; its slug is the first free one for the name. */
export function createRole(em: EntityManager, platformId: number, name: string, permissions: string[]): Promise<Role> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const platform = await tx.findOneOrFail(PlatformEntity, { id: platformId })
      const role = tx.create(RoleEntity, {
        slug: await freeSlug(tx, RoleEntity, name),
        name,
        permissions,
        platform,
        createdAt: new Date(),
      })
      await tx.flush()
      return role
    }),
  )
}

const inUse = (count: number) =>
  invalid(
    { role: `is used by ${count === 1 ? 'an access' : `${count} accesses`}` },
    'This role is granted by accesses: delete them first.',
  )

/**
 * Deletes a role. A role that accesses grant is kept (412): deleting it would silently
 * take rights away from their subjects. The foreign key refuses it too, should an access
 * be created concurrently.
 */
export async function deleteRole(em: EntityManager, role: Role): Promise<void> {
  try {
    await transaction(em, async (tx) => {
      const count = await tx.count(AccessEntity, { role: role.id })
      if (count > 0) throw inUse(count)
      await tx.nativeDelete(RoleEntity, { id: role.id })
    })
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException)
      throw inUse(await em.count(AccessEntity, { role: role.id }))
    throw error
  }
}

/**
 * No privilege escalation: the flags a request adds to a role (those of `wanted` not in
 * `previous`) must all be held by the caller on the role's platform, through their own
 * role flags there (platform administrators and installation administrators hold all).
 */
export async function requireGrantableRole(
  authz: Authz,
  user: Principal,
  platformId: number,
  wanted: readonly string[],
  previous: readonly string[],
): Promise<void> {
  const added = wanted.filter((flag) => !previous.includes(flag))
  if (added.length === 0) return
  const held = await authz.flagsOn(user, { kind: 'platform', id: platformId })
  if (held === 'all') return
  const missing = added.filter((flag) => !held.has(flag))
  if (missing.length > 0) throw forbidden(`You may not grant permissions you do not hold: ${missing.join(', ')}.`)
}

/** How many roles a platform has. */
export function roleCount(em: EntityManager, platformId: number): Promise<number> {
  return em.count(RoleEntity, { platform: platformId })
}

/** One page of a platform's roles, oldest first. */
export function rolePage(em: EntityManager, platformId: number, page: Page): Promise<Role[]> {
  return em.find(
    RoleEntity,
    { platform: platformId },
    { orderBy: { id: 'asc' }, offset: page.offset, limit: page.limit },
  )
}
