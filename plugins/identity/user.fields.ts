import type { FieldReader } from '../../src/kernel/index.js'
import { isCountryCode, isLanguageCode } from '../../src/shared/iso-codes.js'

/**
 * Characters a username may hold: ASCII letters, digits, `.`, `_`, `-` and `@`, starting with
 * a letter or a digit. Usernames travel in Digest headers (quoted strings) and URL paths:
 * this set needs no escaping in either, cannot spell `.` or `..`, and has no look-alike letters.
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/

/** Longest username, password, and the other limits of the spec (User section, Limits). */
export const USER_LIMITS = {
  username: 128,
  password: 128,
  name: 255,
  email: 255,
  address: 255,
  telephone: 20,
  city: 100,
  zipcode: 5,
} as const

/**
 * Checked user fields: undefined when absent (unchanged), null when sent empty (cleared),
 * else the value. Country and language are the codes, as stored.
 */
export interface UserFields {
  username?: string
  /** Taken exactly as sent (not trimmed): spaces may belong to a password. */
  password?: string
  email?: string
  firstName?: string | null
  lastName?: string | null
  telephone?: string | null
  address?: string | null
  city?: string | null
  zipcode?: string | null
  country?: string | null
  language?: string | null
  isActive?: boolean
  /** Slug of the profile to give. */
  profile?: string
  /** Slug of the platform, when sent: it must be the user's own (users never move). */
  platform?: string
}

export interface UserFieldOptions {
  /**
   * Whether a password is required on create (the API: the spec marks it R). The CLI makes
   * API-key-only users, whose password is optional.
   */
  requirePassword?: boolean
  /** Whether a profile is required on create (the API); the CLI defaults it. */
  requireProfile?: boolean
}

function password(v: FieldReader, required: boolean): string | undefined {
  if (!v.has('password')) {
    if (required && v.mode === 'create') v.fail('password', 'is required')
    return undefined
  }
  const value = v.form.password
  if (typeof value !== 'string') {
    v.fail('password', 'must be a single value')
    return undefined
  }
  if (value.trim() === '') {
    // A user who has a password keeps one: an empty one would match any empty cipher.
    if (required || v.mode === 'update') v.fail('password', v.mode === 'create' ? 'is required' : 'cannot be empty')
    return undefined
  }
  if ([...value].length > USER_LIMITS.password) {
    v.fail('password', `must be at most ${USER_LIMITS.password} characters`)
    return undefined
  }
  return value
}

function code(
  v: FieldReader,
  field: string,
  valid: (code: string) => boolean,
  message: string,
): string | null | undefined {
  const value = v.string(field)
  if (value && !valid(value)) {
    v.fail(field, message)
    return undefined
  }
  return value
}

function isActive(v: FieldReader): boolean | undefined {
  const value = v.boolean('is_active')
  // Sent empty: there is nothing to clear it to but the default, so say what is expected.
  if (value === null) v.fail('is_active', 'must be 0 or 1')
  return value ?? undefined
}

/**
 * Reads and checks the user fields of a request (API create and update, and `mediactl user
 * create`): the one place where the spec's rules for users are written. Failures are
 * collected in `v`; the caller adds its own (profile lookup) and calls `v.done()`.
 * Uniqueness and quotas need the database: the user service checks them.
 */
export function readUserFields(v: FieldReader, options: UserFieldOptions = {}): UserFields {
  const text = (field: string, max: number): string | null | undefined => v.string(field, { max })
  const fields: UserFields = {
    username:
      v.string('username', {
        required: true,
        max: USER_LIMITS.username,
        pattern: {
          regex: USERNAME_PATTERN,
          message: 'may hold only letters, digits and . _ - @, and must start with a letter or a digit',
        },
      }) ?? undefined,
    password: password(v, options.requirePassword ?? true),
    email: v.email('email', { required: true, max: USER_LIMITS.email }) ?? undefined,
    firstName: text('first_name', USER_LIMITS.name),
    lastName: text('last_name', USER_LIMITS.name),
    telephone: text('telephone', USER_LIMITS.telephone),
    address: text('address', USER_LIMITS.address),
    city: text('city', USER_LIMITS.city),
    zipcode: v.string('zipcode', { length: USER_LIMITS.zipcode }),
    country: code(v, 'country', isCountryCode, 'must be an ISO 3166-1 alpha-2 code in uppercase, for example FR'),
    language: code(v, 'language', isLanguageCode, 'must be an ISO 639-1 code in lowercase, for example fr'),
    isActive: isActive(v),
    profile: v.string('profile', { required: options.requireProfile ?? true, max: 64 }) ?? undefined,
    platform: v.string('platform', { max: 64 }) ?? undefined,
  }
  return fields
}

/**
 * Request fields that say who a user is and what they may do: changing them always needs
 * `user.edit`. The others (names, e-mail, password, telephone, address, city, zipcode,
 * country, language) are personal: users may change their own without it.
 */
export const PRIVILEGED_FIELDS: readonly string[] = ['username', 'profile', 'is_active']
