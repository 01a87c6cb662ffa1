import { createHash } from 'node:crypto'
import type { EntityManager } from '../../src/kernel/index.js'
import { randomToken } from '../../src/shared/secrets.js'
import { UserEntity } from '../identity/index.js'
import type { ConsoleConfig } from './console.config.js'
import { ConsoleSessionEntity } from './console.entities.js'

/** Characters of a session id (the cookie) and of a CSRF token: 43 base62 characters, over 256 bits. */
const TOKEN_LENGTH = 43
const TOKEN_SHAPE = /^[A-Za-z0-9]{43}$/
/** A session's `seenAt` is written at most this often: not a write per request. */
const SEEN_PRECISION_MS = 60_000

/** The stored form of a session id or a link's token. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex')

/** Whether a string could be a token of ours at all: anything else is unknown without asking the database. */
export const isTokenShaped = (token: string): boolean => TOKEN_SHAPE.test(token)

/** A new session: the id for the cookie (shown to the browser once, stored hashed) and its CSRF token. */
export interface OpenedSession {
  id: string
  csrf: string
  expiresAt: Date
}

/** A live session as the console's pages and the `sessions` port read it. */
export interface LiveSession {
  sessionId: number
  userId: number
  username: string
  csrf: string
}

/** Opens a session for a user who just proved who they are: always a new id (no fixation of an old one). */
export async function openSession(
  em: EntityManager,
  userId: number,
  config: ConsoleConfig,
  now = new Date(),
): Promise<OpenedSession> {
  const id = randomToken(TOKEN_LENGTH)
  const csrf = randomToken(TOKEN_LENGTH)
  const expiresAt = new Date(now.getTime() + config.session_lifetime * 1000)
  em.create(ConsoleSessionEntity, {
    idHash: tokenHash(id),
    user: em.getReference(UserEntity, userId),
    csrf,
    createdAt: now,
    seenAt: now,
    expiresAt,
  })
  await em.flush()
  return { id, csrf, expiresAt }
}

/**
 * The session of cookie value `id` when it is alive as of `now` (not past its lifetime, used within
 * `session_idle`, its user active); notes the request (`seenAt`, to the minute). Undefined otherwise.
 */
export async function liveSession(
  em: EntityManager,
  id: string,
  config: ConsoleConfig,
  now = new Date(),
): Promise<LiveSession | undefined> {
  if (!isTokenShaped(id)) return undefined
  const session = await em.findOne(
    ConsoleSessionEntity,
    {
      idHash: tokenHash(id),
      expiresAt: { $gt: now },
      seenAt: { $gt: new Date(now.getTime() - config.session_idle * 1000) },
    },
    { populate: ['user'] },
  )
  if (!session || !session.user.isActive) return undefined
  if (now.getTime() - session.seenAt.getTime() >= SEEN_PRECISION_MS) {
    await em.nativeUpdate(ConsoleSessionEntity, { id: session.id }, { seenAt: now })
  }
  return { sessionId: session.id, userId: session.user.id, username: session.user.username, csrf: session.csrf }
}

/** Ends the session of cookie value `id` (sign-out); answers whether there was one. */
export async function endSession(em: EntityManager, id: string): Promise<boolean> {
  if (!isTokenShaped(id)) return false
  return (await em.nativeDelete(ConsoleSessionEntity, { idHash: tokenHash(id) })) > 0
}

/** Ends every session of a user (sign out everywhere, a new password); answers how many. */
export function endUserSessions(em: EntityManager, userIds: number[]): Promise<number> {
  if (userIds.length === 0) return Promise.resolve(0)
  return em.nativeDelete(ConsoleSessionEntity, { user: { $in: userIds } })
}

/** Removes the sessions that ended by `now`, past their lifetime or idle; answers how many. */
export function purgeSessions(em: EntityManager, config: ConsoleConfig, now: Date): Promise<number> {
  const idleSince = new Date(now.getTime() - config.session_idle * 1000)
  return em.nativeDelete(ConsoleSessionEntity, { $or: [{ expiresAt: { $lte: now } }, { seenAt: { $lte: idleSince } }] })
}
