import { ForeignKeyConstraintViolationException } from '@mikro-orm/core'
import {
  type Authz,
  type EntityManager,
  INSTANCE_ADMIN_FLAG,
  type Page,
  type Principal,
  forbidden,
  freeSlug,
  invalid,
  isInstanceAdmin,
  retryOnConflict,
  transaction,
} from '../../src/kernel/index.js'
import { PlatformEntity } from '../platforms/index.js'
import { type Profile, ProfileEntity } from './profile.entity.js'
import { UserEntity } from './user.entity.js'

/** What a profile is made of, checked. */
export interface ProfileInput {
  name: string
  /** Bytes; 0 is unlimited. */
  quota: number
  permissions: string[]
}

/** Creates a profile on a platform; its slug is the first free one for the name. */
export function createProfile(em: EntityManager, platformId: number, input: ProfileInput): Promise<Profile> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const platform = await tx.findOneOrFail(PlatformEntity, { id: platformId })
      const profile = tx.create(ProfileEntity, {
        ...input,
        slug: await freeSlug(tx, ProfileEntity, input.name),
        platform,
        createdAt: new Date(),
      })
      await tx.flush()
      return profile
    }),
  )
}

const inUse = (count: number) =>
  invalid(
    { profile: `is the profile of ${count === 1 ? 'a user' : `${count} users`}` },
    'This profile is given to users: give them another profile first.',
  )

/**
 * Deletes a profile that no user has (412 otherwise: every user needs one). The foreign
 * key refuses it too, should a user be given it concurrently.
 */
export async function deleteProfile(em: EntityManager, profile: Profile): Promise<void> {
  try {
    await transaction(em, async (tx) => {
      const count = await tx.count(UserEntity, { profile: profile.id })
      if (count > 0) throw inUse(count)
      await tx.nativeDelete(ProfileEntity, { id: profile.id })
    })
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException)
      throw inUse(await em.count(UserEntity, { profile: profile.id }))
    throw error
  }
}

/**
 * A profile holding `instance.view` makes installation administrators: only they may
 * change or delete it, so a platform's own administrators cannot demote them (403).
 */
export function requireChangeable(user: Principal, profile: Profile): void {
  if (profile.permissions.includes(INSTANCE_ADMIN_FLAG) && !isInstanceAdmin(user)) {
    throw forbidden(`Only installation administrators change a profile holding "${INSTANCE_ADMIN_FLAG}".`)
  }
}

/**
 * No privilege escalation: the flags a request adds to a profile (those of `wanted` not in
 * `previous`) must all be held by the caller's own profile; `instance.view` only by
 * installation administrators (who hold every flag).
 */
export function requireGrantableProfile(
  authz: Authz,
  user: Principal,
  wanted: readonly string[],
  previous: readonly string[],
): void {
  const added = wanted.filter((flag) => !previous.includes(flag))
  if (added.includes(INSTANCE_ADMIN_FLAG) && !isInstanceAdmin(user)) {
    throw forbidden(`Only installation administrators grant "${INSTANCE_ADMIN_FLAG}".`)
  }
  const missing = added.filter((flag) => !authz.hasProfileFlag(user, flag))
  if (missing.length > 0) throw forbidden(`You may not grant permissions you do not hold: ${missing.join(', ')}.`)
}

/**
 * Refuses (412) to take `instance.view` from a profile when its users are the only
 * installation administrators left: nobody could administer the installation any more.
 */
export async function requireAnotherInstanceAdmin(
  em: EntityManager,
  profile: Profile,
  permissions: readonly string[],
): Promise<void> {
  if (!profile.permissions.includes(INSTANCE_ADMIN_FLAG) || permissions.includes(INSTANCE_ADMIN_FLAG)) return
  // Only active administrators count: an inactive one cannot administer anything.
  if ((await em.count(UserEntity, { profile: profile.id, isActive: true })) === 0) return
  const others = (await em.find(ProfileEntity, { id: { $ne: profile.id } }))
    .filter((p) => p.permissions.includes(INSTANCE_ADMIN_FLAG))
    .map((p) => p.id)
  if (others.length > 0 && (await em.count(UserEntity, { profile: { $in: others }, isActive: true })) > 0) return
  throw invalid(
    { 'permission[Instance][view]': 'would leave the installation without an administrator' },
    'Its users are the last installation administrators: give another user this permission first.',
  )
}

/** How many profiles a platform has. */
export function profileCount(em: EntityManager, platformId: number): Promise<number> {
  return em.count(ProfileEntity, { platform: platformId })
}

/** One page of a platform's profiles, oldest first (platform loaded, for its link). */
export function profilePage(em: EntityManager, platformId: number, page: Page): Promise<Profile[]> {
  return em.find(
    ProfileEntity,
    { platform: platformId },
    { populate: ['platform'], orderBy: { id: 'asc' }, offset: page.offset, limit: page.limit },
  )
}
