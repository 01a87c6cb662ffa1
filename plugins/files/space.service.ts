import { type EntityManager, invalid } from '../../src/kernel/index.js'

/** Bytes used and allowed, for the platform and for the user's profile (0 allowed: unlimited). */
export interface SpaceUsage {
  platformUsed: number
  platformMax: number
  userUsed: number
  userMax: number
}

const sum = async (em: EntityManager, sql: string, params: unknown[]): Promise<number> =>
  Number((await em.execute<{ n: number | string | null }[]>(sql, params))[0]?.n ?? 0)

/**
 * What a platform and a user use: the bytes of their files (renditions included) and of
 * their chunked uploads still pending, which hold space until they finish or expire.
 * `exceptPending` leaves out the pending upload being turned into a file.
 */
export async function spaceUsage(
  em: EntityManager,
  user: { id: number; platformId: number },
  exceptPending?: number,
): Promise<SpaceUsage> {
  const except = exceptPending ?? 0
  // One query after the other: inside a transaction `em` holds one connection, and PostgreSQL
  // clients refuse (pg 9) or queue (pg 8, with a deprecation warning) overlapping queries on it.
  const platformFiles = await sum(em, 'select sum(stored_bytes) as n from files where platform_id = ?', [
    user.platformId,
  ])
  const platformPending = await sum(
    em,
    'select sum(received_bytes) as n from pending_uploads where platform_id = ? and id <> ?',
    [user.platformId, except],
  )
  const userFiles = await sum(em, 'select sum(stored_bytes) as n from files where user_id = ?', [user.id])
  const userPending = await sum(
    em,
    'select sum(received_bytes) as n from pending_uploads where user_id = ? and id <> ?',
    [user.id, except],
  )
  const limits = await em.execute<{ max_space: number | string; quota: number | string }[]>(
    `select p.max_space, r.quota from users u join platforms p on p.id = u.platform_id
     join profiles r on r.id = u.profile_id where u.id = ?`,
    [user.id],
  )
  return {
    platformUsed: platformFiles + platformPending,
    platformMax: Number(limits[0]?.max_space ?? 0),
    userUsed: userFiles + userPending,
    userMax: Number(limits[0]?.quota ?? 0),
  }
}

/** Bytes that may still be stored (Infinity when neither limit applies; never negative). */
export function spaceLeft(usage: SpaceUsage): number {
  const left = (max: number, used: number): number => (max > 0 ? Math.max(0, max - used) : Infinity)
  return Math.min(left(usage.platformMax, usage.platformUsed), left(usage.userMax, usage.userUsed))
}

/** The 412 of an upload that does not fit, naming the limit it crosses and what is left. */
export function overQuota(usage: SpaceUsage, field: string): Error {
  const platformLeft = usage.platformMax > 0 ? Math.max(0, usage.platformMax - usage.platformUsed) : Infinity
  const userLeft = usage.userMax > 0 ? Math.max(0, usage.userMax - usage.userUsed) : Infinity
  const message =
    userLeft <= platformLeft
      ? `exceeds your profile's quota of ${usage.userMax} bytes (${userLeft} bytes left)`
      : `exceeds the platform's space of ${usage.platformMax} bytes (${platformLeft} bytes left)`
  return invalid({ [field]: message }, 'Not enough space left: delete files or ask an administrator for more space.')
}

/** Throws the 412 of `overQuota` unless `bytes` more fit. */
export function requireSpace(usage: SpaceUsage, bytes: number, field: string): void {
  if (bytes > spaceLeft(usage)) throw overQuota(usage, field)
}
