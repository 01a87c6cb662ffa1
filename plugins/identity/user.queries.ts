import { type Reader, jsonColumn } from '../../src/kernel/index.js'

/** What the list endpoint shows of a user. */
export interface UserSummary {
  id: number
  username: string
  firstName: string | null
  lastName: string | null
  email: string
  isActive: boolean
}

/** What user info shows, plus what the read endpoints need to authorize and link. */
export interface UserView extends UserSummary {
  telephone: string | null
  address: string | null
  city: string | null
  zipcode: string | null
  /** ISO 3166-1 alpha-2 (uppercase), as stored. */
  country: string | null
  /** ISO 639-1 (lowercase), as stored. */
  language: string | null
  platformId: number
  platformSlug: string
  profileSlug: string
}

/** The stored password hash of a user, for the password check. */
export interface UserSecret {
  id: number
  platformId: number
  isActive: boolean
  passwordHash: string | null
}

/** A profile as user writes need it: its platform, and the flags it grants. */
export interface ProfileGrant {
  id: number
  slug: string
  platformId: number
  permissions: string[]
}

interface Row {
  [column: string]: unknown
}

const SUMMARY = 'u.id, u.username, u.first_name, u.last_name, u.email, u.is_active'
const INFO = `${SUMMARY}, u.telephone, u.address, u.city, u.zipcode, u.country, u.language,
  u.platform_id, pl.slug as platform_slug, pr.slug as profile_slug`

const text = (value: unknown): string | null => (value == null ? null : String(value))

// SQLite answers booleans as 0/1, PostgreSQL as true/false; ids may come back as strings.
const toSummary = (row: Row): UserSummary => ({
  id: Number(row.id),
  username: String(row.username),
  firstName: text(row.first_name),
  lastName: text(row.last_name),
  email: String(row.email),
  isActive: Boolean(row.is_active),
})

const toView = (row: Row): UserView => ({
  ...toSummary(row),
  telephone: text(row.telephone),
  address: text(row.address),
  city: text(row.city),
  zipcode: text(row.zipcode),
  country: text(row.country),
  language: text(row.language),
  platformId: Number(row.platform_id),
  platformSlug: String(row.platform_slug),
  profileSlug: String(row.profile_slug),
})

/** Prepared reads of users for the hot GET endpoints (committed data, kernel reader). */
export const userQueries = {
  /** A user with the slugs of their platform and profile, by username (exact). */
  async byUsername(reader: Reader, username: string): Promise<UserView | undefined> {
    const row = await reader.one(
      `select ${INFO} from users u join platforms pl on pl.id = u.platform_id
       join profiles pr on pr.id = u.profile_id where u.username = ?`,
      [username],
    )
    return row && toView(row)
  },

  /** The password hash of a user, by username. */
  async secret(reader: Reader, username: string): Promise<UserSecret | undefined> {
    const row = await reader.one('select id, platform_id, is_active, password_hash from users where username = ?', [
      username,
    ])
    return (
      row && {
        id: Number(row.id),
        platformId: Number(row.platform_id),
        isActive: Boolean(row.is_active),
        passwordHash: text(row.password_hash),
      }
    )
  },

  /** A profile by slug, whatever its platform (the caller compares). */
  async profile(reader: Reader, slug: string): Promise<ProfileGrant | undefined> {
    const row = await reader.one('select id, slug, platform_id, permissions from profiles where slug = ?', [slug])
    if (!row) return undefined
    // A JSON column: text on SQLite, already parsed on PostgreSQL.
    const permissions = jsonColumn<string[]>(row.permissions)
    return {
      id: Number(row.id),
      slug: String(row.slug),
      platformId: Number(row.platform_id),
      permissions: permissions as string[],
    }
  },

  /** How many users a platform has. */
  async count(reader: Reader, platformId: number): Promise<number> {
    return reader.count('select count(*) as n from users where platform_id = ?', [platformId])
  },

  /** One page of a platform's users, oldest first (ids grow with creation). */
  async page(reader: Reader, platformId: number, offset: number, limit: number): Promise<UserSummary[]> {
    const rows = await reader.all(
      `select ${SUMMARY} from users u where u.platform_id = ? order by u.id limit ? offset ?`,
      [platformId, limit, offset],
    )
    return rows.map(toSummary)
  },
}
