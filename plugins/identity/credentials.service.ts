import type { CredentialsPort, DigestCredentials, EntityManager } from '../../src/kernel/index.js'

interface Row {
  id: number
  username: string
  platform_id: number
  ha1: string
  is_active: number | boolean
  permissions: string | string[]
}

/** Loads Digest credentials with one indexed query (users joined to their profile). */
export const credentials: CredentialsPort = {
  async findByUsername(em: EntityManager, username: string): Promise<DigestCredentials | null> {
    const row = (await em
      .getKnex()
      .select('u.id', 'u.username', 'u.platform_id', 'u.ha1', 'u.is_active', 'p.permissions')
      .from({ u: 'users' })
      .join({ p: 'profiles' }, 'p.id', 'u.profile_id')
      .where('u.username', username)
      .first()) as Row | undefined
    if (!row) return null
    const permissions =
      typeof row.permissions === 'string' ? (JSON.parse(row.permissions) as string[]) : row.permissions
    return {
      id: row.id,
      username: row.username,
      platformId: row.platform_id,
      ha1: row.ha1,
      isActive: Boolean(row.is_active),
      flags: new Set(permissions),
    }
  },
}
