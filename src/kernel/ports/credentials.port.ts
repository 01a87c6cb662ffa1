import type { TimestampDialect } from '../http/xml.js'

/** What the kernel knows of an authenticated user; plugins load the full record when needed. */
export interface Principal {
  /** Database id of the user. */
  id: number
  /** Login name, unique across the installation. */
  username: string
  /** Database id of the user's platform. */
  platformId: number
  /** Profile flags the user holds, as `model.action` strings (for example `instance.view`). */
  flags: ReadonlySet<string>
  /** The date-time dialect the user's platform chose for its clients; null: the installation's (`api.timestamps`). */
  timestamps?: TimestampDialect | null
}

/** A user as seen by Digest authentication. */
export interface DigestCredentials extends Principal {
  /** md5(username:realm:api_key), hex; the API key itself is never stored. */
  ha1: string
  /** Inactive users (is_active 0) are refused with 401. */
  isActive: boolean
}

/**
 * Looks users up for authentication. Provided by the identity plugin; called once per
 * authenticated request, so it should be one prepared, indexed query (the kernel reader).
 */
export interface CredentialsPort {
  /** The credentials of `username` as committed in the database, or null when no such user exists. */
  findByUsername(username: string): Promise<DigestCredentials | null>
}
