import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core'
import {
  type EntityManager,
  type FieldErrors,
  FieldReader,
  type Form,
  INSTANCE_ADMIN_FLAG,
  type Emit,
  invalid,
  transaction,
} from '../../src/kernel/index.js'
import { hashPassword } from '../../src/shared/password.js'
import { md5Hex, randomToken } from '../../src/shared/secrets.js'
import { type Platform, lockPlatform } from '../platforms/index.js'
import { DEFAULT_PROFILES, INSTANCE_ADMIN_PROFILE } from './profile-flags.js'
import { type Profile, ProfileEntity } from './profile.entity.js'
import { ensureProfile } from './seeds.service.js'
import { type User, UserEntity } from './user.entity.js'
import './user.events.js'
import { type UserFields, readUserFields } from './user.fields.js'
import type { UserView } from './user.queries.js'

/** Length of generated API keys, in [A-Za-z0-9] characters (about 238 bits). */
export const API_KEY_LENGTH = 40

/** The Digest HA1 of a user's API key (API-DECISIONS: Authentication). */
export function digestHa1(username: string, realm: string, apiKey: string): string {
  return md5Hex(`${username}:${realm}:${apiKey}`)
}

/** A user to create: checked fields (see readUserFields), their platform and profile. */
export interface NewUser extends Omit<UserFields, 'username' | 'email' | 'profile' | 'platform' | 'password'> {
  platform: Pick<Platform, 'id'>
  /** Profile to give (of the same platform); default the platform's Administrator profile. */
  profile?: Pick<Profile, 'id'>
  /** Makes an installation administrator (every profile flag), whatever `profile` says. */
  admin?: boolean
  username: string
  email: string
  password?: string | null
  realm: string
}

/** The view of a user entity loaded with its platform and profile (for the write answers). */
export function userView(user: User): UserView {
  return {
    id: user.id,
    username: user.username,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    isActive: user.isActive,
    telephone: user.telephone,
    address: user.address,
    city: user.city,
    zipcode: user.zipcode,
    country: user.country,
    language: user.language,
    platformId: user.platform.id,
    platformSlug: user.platform.slug,
    profileSlug: user.profile.slug,
  }
}

interface Scope {
  platformId?: number
  /** The user being changed, who may keep their own value. */
  except?: number
}

// Usernames and e-mails compare without case: `Alice` next to `alice` invites mistakes and impersonation.
async function clashes(tx: EntityManager, column: 'username' | 'email', value: string, scope: Scope): Promise<boolean> {
  const where = scope.platformId === undefined ? '' : ' and platform_id = ?'
  const params: unknown[] = [value, ...(scope.platformId === undefined ? [] : [scope.platformId])]
  const rows = await tx.execute<{ id: number }[]>(
    `select id from users where lower(${column}) = lower(?)${where}`,
    params,
  )
  return rows.some((row) => Number(row.id) !== scope.except)
}

async function checkUnique(
  tx: EntityManager,
  errors: FieldErrors,
  fields: { username?: string; email?: string },
  platformId: number,
  except?: number,
): Promise<void> {
  if (fields.username !== undefined && (await clashes(tx, 'username', fields.username, { except }))) {
    errors.username = 'is already used'
  }
  if (fields.email !== undefined && (await clashes(tx, 'email', fields.email, { platformId, except }))) {
    errors.email = 'is already used on this platform'
  }
}

/** A unique index refused a value a concurrent request took first: say which field, as the checks do. */
function uniqueClash(error: unknown): never {
  if (error instanceof UniqueConstraintViolationException) {
    throw invalid(
      /email/i.test(error.message) ? { email: 'is already used on this platform' } : { username: 'is already used' },
    )
  }
  throw error
}

// Request field names of the NewUser properties, to check them with the request rules.
const FORM_NAMES = {
  username: 'username',
  email: 'email',
  password: 'password',
  first_name: 'firstName',
  last_name: 'lastName',
  telephone: 'telephone',
  address: 'address',
  city: 'city',
  zipcode: 'zipcode',
  country: 'country',
  language: 'language',
} as const satisfies Record<string, keyof NewUser>

/**
 * The fields of a new user checked with the very rules of the API (readUserFields), whoever
 * creates it: a request, `mediactl user create`, `mediactl init`. Password and profile are
 * optional here (API-key-only users, default profile); the API requires them beforehand.
 */
function checkedFields(input: NewUser): UserFields {
  const form = Object.create(null) as Form
  for (const [name, key] of Object.entries(FORM_NAMES)) {
    const value = input[key]
    if (typeof value === 'string') form[name] = value
  }
  if (input.isActive !== undefined) form.is_active = input.isActive ? '1' : '0'
  const v = new FieldReader(form, 'create')
  const fields = readUserFields(v, { requirePassword: false, requireProfile: false })
  v.done()
  return fields
}

/**
 * Creates a user with a fresh API key, in one transaction that locks the platform row: the
 * `max_users` quota (0 unlimited) is counted and the row inserted under that lock, so
 * concurrent creations never overshoot. Throws 412 (`max_users`, `username`, `email`).
 * Returns the user (platform and profile loaded) and the key, shown once and never stored.
 * With `emit` (the routes and the operator's commands), `user.created` is announced in that
 * transaction; fixtures and seeds go without.
 */
export async function createUser(
  em: EntityManager,
  input: NewUser,
  emit?: Emit,
): Promise<{ user: User; apiKey: string }> {
  const fields = checkedFields(input)
  // Hash before taking the lock: scrypt is deliberately slow.
  const passwordHash = fields.password ? await hashPassword(fields.password) : null
  const apiKey = randomToken(API_KEY_LENGTH)
  try {
    const user = await transaction(em, async (tx) => {
      const platform = await lockPlatform(tx, input.platform.id)
      const errors: FieldErrors = {}
      const count = await tx.count(UserEntity, { platform: platform.id })
      if (platform.maxUsers > 0 && count >= platform.maxUsers) {
        errors.max_users = `is reached: the platform already has ${count} users`
      }
      await checkUnique(tx, errors, fields, platform.id)
      if (Object.keys(errors).length) throw invalid(errors)
      const profile = input.admin
        ? await ensureProfile(tx, platform, INSTANCE_ADMIN_PROFILE)
        : input.profile
          ? await tx.findOneOrFail(ProfileEntity, { id: input.profile.id, platform: platform.id })
          : await ensureProfile(tx, platform, DEFAULT_PROFILES[0]!)
      const created = tx.create(UserEntity, {
        username: fields.username!,
        email: fields.email!,
        firstName: fields.firstName ?? null,
        lastName: fields.lastName ?? null,
        telephone: fields.telephone ?? null,
        address: fields.address ?? null,
        city: fields.city ?? null,
        zipcode: fields.zipcode ?? null,
        country: fields.country ?? null,
        language: fields.language ?? null,
        isActive: fields.isActive ?? true,
        passwordHash,
        ha1: digestHa1(fields.username!, input.realm, apiKey),
        platform,
        profile,
        createdAt: new Date(),
      })
      await tx.flush()
      await emit?.('user.created', {
        em: tx,
        user: { id: created.id, username: created.username, platformId: platform.id },
      })
      return created
    })
    return { user, apiKey }
  } catch (error) {
    uniqueClash(error)
  }
}

/** Changes to a user: checked fields, with the profile resolved. */
export interface UserChanges extends Omit<UserFields, 'profile' | 'platform'> {
  profile?: Pick<Profile, 'id'>
}

/** The user columns a partial update copies as they are (password and profile need work first). */
const COLUMNS = [
  'username',
  'email',
  'firstName',
  'lastName',
  'telephone',
  'address',
  'city',
  'zipcode',
  'country',
  'language',
  'isActive',
] as const satisfies readonly (keyof UserChanges & keyof User)[]

const LAST_ADMIN = 'the user is the last active installation administrator'
const LAST_ADMIN_MESSAGE =
  'This would leave the installation without an active installation administrator: make another one first (mediactl user create --admin).'

const isAdminProfile = (profile: Profile): boolean => profile.permissions.includes(INSTANCE_ADMIN_FLAG)

/**
 * The active installation administrators, their rows locked until the transaction ends, so
 * that two administrators removing each other at the same time cannot both succeed.
 */
async function lockActiveAdmins(tx: EntityManager): Promise<User[]> {
  // The flag list is JSON text in both databases; the quotes make the match exact.
  const profiles = await tx.execute<{ id: number }[]>(
    'select id from profiles where cast(permissions as text) like ?',
    [`%"${INSTANCE_ADMIN_FLAG}"%`],
  )
  if (profiles.length === 0) return []
  return tx.find(
    UserEntity,
    { profile: { $in: profiles.map((p) => Number(p.id)) }, isActive: true },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  )
}

/** Throws 412 on `field` when `user` is the last active installation administrator. */
async function keepOneAdmin(tx: EntityManager, user: User, field: string): Promise<void> {
  if (!user.isActive || !isAdminProfile(user.profile)) return
  const admins = await lockActiveAdmins(tx)
  if (admins.every((admin) => admin.id === user.id)) throw invalid({ [field]: LAST_ADMIN }, LAST_ADMIN_MESSAGE)
}

/**
 * Applies a partial update in one transaction: uniqueness of a new username or e-mail
 * (412), and the last active installation administrator stays one (412). A new username
 * keeps the stored HA1, which was made with the old one: the user needs a new API key
 * (`mediactl user key`) to authenticate again. A new password emits `user.password-changed` in the transaction.
 * Returns the user, platform and profile loaded.
 */
export async function updateUser(emit: Emit, em: EntityManager, id: number, changes: UserChanges): Promise<User> {
  const passwordHash = changes.password ? await hashPassword(changes.password) : undefined
  try {
    return await transaction(em, async (tx) => {
      const current = await tx.findOneOrFail(UserEntity, { id }, { populate: ['profile'] })
      if (changes.email !== undefined) await lockPlatform(tx, current.platform.id)
      const errors: FieldErrors = {}
      await checkUnique(tx, errors, changes, current.platform.id, id)
      const profile =
        changes.profile &&
        (await tx.findOneOrFail(ProfileEntity, { id: changes.profile.id, platform: current.platform.id }))
      if (Object.keys(errors).length) throw invalid(errors)
      if (changes.isActive === false) await keepOneAdmin(tx, current, 'is_active')
      if (profile && !isAdminProfile(profile)) await keepOneAdmin(tx, current, 'profile')

      for (const key of COLUMNS) {
        if (changes[key] !== undefined) Object.assign(current, { [key]: changes[key] })
      }
      if (passwordHash) current.passwordHash = passwordHash
      if (profile) current.profile = profile
      await tx.flush()
      if (passwordHash) await emit('user.password-changed', { em: tx, userId: id })
      await tx.populate(current, ['platform', 'profile'])
      return current
    })
  } catch (error) {
    uniqueClash(error)
  }
}

/**
 * Deletes a user in one transaction: `user.deleting` lets plugins remove what the user owns,
 * then the row goes, and with it (database cascades) their accesses and group memberships.
 * The last active installation administrator cannot be deleted (412).
 */
export async function deleteUser(emit: Emit, em: EntityManager, id: number): Promise<void> {
  await transaction(em, async (tx) => {
    const user = await tx.findOneOrFail(UserEntity, { id }, { populate: ['profile', 'platform'] })
    await keepOneAdmin(tx, user, 'username')
    await emit('user.deleting', { em: tx, user })
    await tx.nativeDelete(UserEntity, { id })
  })
}

/** Installation administrators (profile with `instance.view`), optionally outside one platform. */
export async function instanceAdmins(em: EntityManager, outside?: Platform): Promise<User[]> {
  // Only active administrators count: an inactive one cannot administer anything.
  const where = outside ? { isActive: true, platform: { $ne: outside.id } } : { isActive: true }
  const users = await em.find(UserEntity, where, { populate: ['profile'] })
  return users.filter((u) => isAdminProfile(u.profile))
}

/** Replaces a user's API key; the old one stops working at once. Returns the new key. */
export async function rotateApiKey(em: EntityManager, user: User, realm: string): Promise<string> {
  const apiKey = randomToken(API_KEY_LENGTH)
  user.ha1 = digestHa1(user.username, realm, apiKey)
  await em.flush()
  return apiKey
}
