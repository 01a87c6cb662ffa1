import { randomBytes } from 'node:crypto'
import { type EntityManager, type HttpContext, forbidden, type Tokens } from '../../src/kernel/index.js'
import type { ViewCounter } from '../resources/index.js'
import { PlayerViewSessionEntity } from './player-view-session.entity.js'

/** The purpose of view tokens: they count one view, and open nothing (media tokens are another purpose). */
export const VIEW_TOKEN_PURPOSE = 'player.view'

/** What a view token carries: the resource (id and slug) and the random id of the page load. */
interface ViewGrant {
  r: number
  s: string
  v: string
  exp: number
}

/**
 * A view token for one page load of a resource's player: a fresh random session id, signed
 * with the resource and an expiry `ttlSeconds` from now. The page sends it back on its first
 * playback (`POST /player/<slug>/views?token=`).
 */
export function viewToken(tokens: Tokens, resource: { id: number; slug: string }, ttlSeconds: number): string {
  const session = randomBytes(16).toString('base64url')
  return tokens.sign(
    VIEW_TOKEN_PURPOSE,
    { r: resource.id, s: resource.slug, v: session },
    new Date(Date.now() + ttlSeconds * 1000),
  )
}

/** The view a request's token (already verified by the kernel) counts, checked against the slug of the path. */
export function requireViewGrant(
  c: HttpContext,
  slug: string,
): { resourceId: number; session: string; expiresAt: Date } {
  const grant = c.token as Partial<ViewGrant> | undefined
  if (!grant || typeof grant.r !== 'number' || typeof grant.v !== 'string' || typeof grant.exp !== 'number') {
    throw forbidden('This is not the view token of a player page.')
  }
  if (grant.s !== slug) throw forbidden('This view token belongs to the player of another resource.')
  return { resourceId: grant.r, session: grant.v, expiresAt: new Date(grant.exp * 1000) }
}

/** At most one opportunistic purge per process per this many ms (see `recordView`). */
const PURGE_INTERVAL_MS = 60_000
let lastPurge = 0

/**
 * Counts a view of a resource once per session: the session id is inserted into
 * `player_view_sessions` (unique), and only the request that inserted it adds one to the
 * resource's `views` (through the resources plugin's counter, which writes them in batches);
 * a replay, concurrent or later, inserts nothing and counts nothing. Not one transaction: a
 * crash after the insert loses the view rather than counting it twice. Rows of expired tokens are
 * removed here too, at most once a minute per process, so the table holds about
 * `player.view_token_ttl` worth of sessions without a scheduled job. Answers whether it counted.
 */
export async function recordView(
  em: EntityManager,
  views: ViewCounter,
  view: { resourceId: number; session: string; expiresAt: Date },
  now = new Date(),
): Promise<boolean> {
  if (now.getTime() - lastPurge > PURGE_INTERVAL_MS) {
    lastPurge = now.getTime()
    await purgeViewSessions(em, now)
  }
  const inserted = await em
    .createQueryBuilder(PlayerViewSessionEntity)
    .insert({ sessionId: view.session, expiresAt: view.expiresAt, createdAt: now })
    .onConflict('sessionId')
    .ignore()
    .execute('run')
  if (inserted.affectedRows !== 1) return false
  await views.add(view.resourceId)
  return true
}

/** Removes the sessions whose view token expired by `now`; returns how many. */
export function purgeViewSessions(em: EntityManager, now: Date): Promise<number> {
  return em.nativeDelete(PlayerViewSessionEntity, { expiresAt: { $lte: now } })
}
