import type {
  CredentialsPort,
  DigestCredentials,
  ProcessCache,
  Reader,
  TimestampDialect,
} from '../../src/kernel/index.js'

interface CredentialsRow {
  id: number
  username: string
  platform_id: number
  ha1: string
  is_active: number | boolean
  permissions: string | string[]
  timestamps: TimestampDialect | null
  [column: string]: unknown
}

// The platform's date-time dialect comes along: every answer to this user is written in it.
const BY_USERNAME = `select u.id, u.username, u.platform_id, u.ha1, u.is_active, p.permissions, pl.timestamps
  from users u join profiles p on p.id = u.profile_id join platforms pl on pl.id = u.platform_id
  where u.username = ?`

// Profiles are few and their flag lists repeat on every request: parse each distinct list once.
const flagSets = new Map<string, ReadonlySet<string>>()
const FLAG_SETS_MAX = 1000

function flagsOf(permissions: string | string[]): ReadonlySet<string> {
  if (Array.isArray(permissions)) return new Set(permissions)
  let flags = flagSets.get(permissions)
  if (!flags) {
    if (flagSets.size >= FLAG_SETS_MAX) flagSets.clear()
    flags = new Set(JSON.parse(permissions) as string[])
    flagSets.set(permissions, flags)
  }
  return flags
}

/**
 * Digest credentials with one prepared, indexed query (users joined to their profile and
 * platform), kept in `cache` until one of those tables changes.
 */
export function credentialsPort(reader: Reader, cache: ProcessCache<DigestCredentials | null>): CredentialsPort {
  return {
    findByUsername: (username) => cache.get(username, () => lookUp(reader, username)),
  }
}

async function lookUp(reader: Reader, username: string): Promise<DigestCredentials | null> {
  const row = await reader.one<CredentialsRow>(BY_USERNAME, [username])
  if (!row) return null
  return {
    id: row.id,
    username: row.username,
    platformId: row.platform_id,
    ha1: row.ha1,
    isActive: Boolean(row.is_active),
    flags: flagsOf(row.permissions),
    timestamps: row.timestamps ?? null,
  }
}
