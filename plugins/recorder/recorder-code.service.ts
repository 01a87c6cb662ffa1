import type { EntityManager, Row } from '../../src/kernel/index.js'
import { randomToken } from '../../src/shared/secrets.js'
import { UserEntity } from '../identity/index.js'
import { RecorderCodeEntity } from './recorder-code.entity.js'
import { CODE_LENGTH, CODE_SQL, codeHash, codeView, isCodeShaped } from './recorder-code.queries.js'

/** Why a recorder code was refused. */
export type RecorderCodeProblem = 'unknown' | 'used' | 'expired'

/** The outcome of `consumeRecorderCode`: the user the code was delivered to, or why it is refused. */
export type RecorderCodeCheck =
  { ok: true; userId: number; platformId: number; username: string } | { ok: false; problem: RecorderCodeProblem }

/** A new recorder code: the identifier to put in the widget (shown once, stored hashed) and its expiry. */
export interface IssuedCode {
  code: string
  expiresAt: Date
}

/** Creates a recorder code for a user, usable once within `ttlSeconds`. */
export async function issueRecorderCode(
  em: EntityManager,
  userId: number,
  ttlSeconds: number,
  now = new Date(),
): Promise<IssuedCode> {
  const code = randomToken(CODE_LENGTH)
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000)
  em.create(RecorderCodeEntity, {
    codeHash: codeHash(code),
    user: em.getReference(UserEntity, userId),
    createdAt: now,
    expiresAt,
    usedAt: null,
  })
  await em.flush()
  return { code, expiresAt }
}

/**
 * Uses a recorder code once, as of `now`: marks it used and answers its user, or refuses a
 * code that is unknown, already used or expired. Atomic: the code is taken by one
 * conditional update (unused and unexpired), so of concurrent uses exactly one succeeds.
 * Runs in its own statement, or inside the caller's transaction when `em` is one.
 */
export async function consumeRecorderCode(
  em: EntityManager,
  code: string,
  now = new Date(),
): Promise<RecorderCodeCheck> {
  if (!isCodeShaped(code)) return { ok: false, problem: 'unknown' }
  const hash = codeHash(code)
  const taken = await em.nativeUpdate(
    RecorderCodeEntity,
    { codeHash: hash, usedAt: null, expiresAt: { $gt: now } },
    { usedAt: now },
  )
  const [row] = await em.execute<Row[]>(CODE_SQL, [hash])
  // Never delivered, purged, or its user was deleted (possibly between the two statements).
  if (!row) return { ok: false, problem: 'unknown' }
  const view = codeView(row)
  if (taken === 1) return { ok: true, userId: view.userId, platformId: view.platformId, username: view.username }
  return { ok: false, problem: view.usedAt ? 'used' : 'expired' }
}

/** Removes the codes that expired by `now` (used or not); returns how many. */
export function purgeRecorderCodes(em: EntityManager, now: Date): Promise<number> {
  return em.nativeDelete(RecorderCodeEntity, { expiresAt: { $lte: now } })
}

/** Removes the codes of users about to be deleted (the foreign key cascades too). */
export async function deleteUserCodes(em: EntityManager, userIds: number[]): Promise<void> {
  if (userIds.length > 0) await em.nativeDelete(RecorderCodeEntity, { user: { $in: userIds } })
}
