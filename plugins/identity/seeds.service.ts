import { type EntityManager, freeSlug } from '../../src/kernel/index.js'
import type { Platform } from '../platforms/index.js'
import { DEFAULT_PROFILES, type DefaultProfile } from './profile-flags.js'
import { type Profile, ProfileEntity } from './profile.entity.js'
import { DEFAULT_ROLES, type DefaultRole } from './role-flags.js'
import { type Role, RoleEntity } from './role.entity.js'

/** Finds the profile of a platform by name, creating it when missing. */
export async function ensureProfile(em: EntityManager, platform: Platform, profile: DefaultProfile): Promise<Profile> {
  const existing = await em.findOne(ProfileEntity, { platform, name: profile.name })
  if (existing) return existing
  const created = em.create(ProfileEntity, {
    slug: await freeSlug(em, ProfileEntity, `${platform.slug}-${profile.name}`),
    name: profile.name,
    quota: 0,
    permissions: [...profile.permissions],
    platform,
    createdAt: new Date(),
  })
  await em.flush()
  return created
}

/** Finds the role of a platform by name, creating it when missing. */
export async function ensureRole(em: EntityManager, platform: Platform, role: DefaultRole): Promise<Role> {
  const existing = await em.findOne(RoleEntity, { platform, name: role.name })
  if (existing) return existing
  const created = em.create(RoleEntity, {
    slug: await freeSlug(em, RoleEntity, `${platform.slug}-${role.name}`),
    name: role.name,
    permissions: [...role.permissions],
    platform,
    createdAt: new Date(),
  })
  await em.flush()
  return created
}

/**
 * Gives a platform its default profiles and roles, each family only when the platform has
 * none of it: defaults that were renamed, changed or deleted are the operator's choice and
 * stay as they are (idempotent).
 */
export async function seedPlatform(em: EntityManager, platform: Platform): Promise<void> {
  if ((await em.count(ProfileEntity, { platform })) === 0) {
    for (const profile of DEFAULT_PROFILES) await ensureProfile(em, platform, profile)
  }
  if ((await em.count(RoleEntity, { platform })) === 0) {
    for (const role of DEFAULT_ROLES) await ensureRole(em, platform, role)
  }
}
