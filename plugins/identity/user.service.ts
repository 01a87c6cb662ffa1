import { type EntityManager, freeSlug } from '../../src/kernel/index.js'
import { hashPassword } from '../../src/shared/password.js'
import { md5Hex, randomToken } from '../../src/shared/secrets.js'
import type { Platform } from '../platforms/index.js'
import { DEFAULT_PROFILES, type DefaultProfile, INSTANCE_ADMIN_PROFILE } from './profile-flags.js'
import { type Profile, ProfileEntity } from './profile.entity.js'
import { type User, UserEntity } from './user.entity.js'

/** Length of generated API keys, in [A-Za-z0-9] characters (about 238 bits). */
export const API_KEY_LENGTH = 40

/** The Digest HA1 of a user's API key (API-DECISIONS: Authentication). */
export function digestHa1(username: string, realm: string, apiKey: string): string {
  return md5Hex(`${username}:${realm}:${apiKey}`)
}

/** Finds the profile of a platform by name, creating it when missing. */
export async function ensureProfile(em: EntityManager, platform: Platform, profile: DefaultProfile): Promise<Profile> {
  const existing = await em.findOne(ProfileEntity, { platform, name: profile.name })
  if (existing) return existing
  const slug = await freeSlug(em, ProfileEntity, `${platform.slug}-${profile.name}`)
  const created = em.create(ProfileEntity, {
    slug,
    name: profile.name,
    quota: 0,
    permissions: [...profile.permissions],
    platform,
    createdAt: new Date(),
  })
  await em.flush()
  return created
}

/** Gives a platform its default profiles (idempotent). */
export async function seedPlatformProfiles(em: EntityManager, platform: Platform): Promise<void> {
  for (const profile of DEFAULT_PROFILES) await ensureProfile(em, platform, profile)
}

export interface NewUser {
  platform: Platform
  /** Profile to give; with `admin` the installation administrator profile is used instead. */
  profile?: Profile
  username: string
  email: string
  password?: string
  /** Makes an installation administrator (every profile flag). */
  admin?: boolean
  realm: string
}

export class UserInputError extends Error {
  override name = 'UserInputError'
}

/** Creates a user with a fresh API key; returns the user and the key (shown once, never stored). */
export async function createUser(em: EntityManager, input: NewUser): Promise<{ user: User; apiKey: string }> {
  if (await em.count(UserEntity, { username: input.username })) {
    throw new UserInputError(`the username "${input.username}" is already used; choose another one`)
  }
  if (await em.count(UserEntity, { platform: input.platform, email: input.email })) {
    throw new UserInputError(`the e-mail "${input.email}" is already used on platform ${input.platform.slug}`)
  }
  const profile = input.admin
    ? await ensureProfile(em, input.platform, INSTANCE_ADMIN_PROFILE)
    : (input.profile ?? (await ensureProfile(em, input.platform, DEFAULT_PROFILES[0]!)))
  const apiKey = randomToken(API_KEY_LENGTH)
  const user = em.create(UserEntity, {
    username: input.username,
    email: input.email,
    firstName: null,
    lastName: null,
    telephone: null,
    address: null,
    city: null,
    zipcode: null,
    country: null,
    language: null,
    isActive: true,
    passwordHash: input.password ? await hashPassword(input.password) : null,
    ha1: digestHa1(input.username, input.realm, apiKey),
    platform: input.platform,
    profile,
    createdAt: new Date(),
  })
  await em.flush()
  return { user, apiKey }
}

/** Installation administrators (profile with `instance.view`), optionally outside one platform. */
export async function instanceAdmins(em: EntityManager, outside?: Platform): Promise<User[]> {
  const users = await em.find(UserEntity, outside ? { platform: { $ne: outside.id } } : {}, { populate: ['profile'] })
  return users.filter((u) => u.profile.permissions.includes('instance.view'))
}

/** Replaces a user's API key; the old one stops working at once. Returns the new key. */
export async function rotateApiKey(em: EntityManager, user: User, realm: string): Promise<string> {
  const apiKey = randomToken(API_KEY_LENGTH)
  user.ha1 = digestHa1(user.username, realm, apiKey)
  await em.flush()
  return apiKey
}
