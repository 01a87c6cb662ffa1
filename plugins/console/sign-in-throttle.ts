import type { EntityManager } from '../../src/kernel/index.js'
import type { ConsoleConfig } from './console.config.js'
import { SignInFailureEntity } from './console.entities.js'

/** What a sign-in attempt is counted against: its account (the name typed) and its address. */
export interface SignInSubjects {
  username: string
  address: string
}

const subjectsOf = ({ username, address }: SignInSubjects): { account: string; address: string } => ({
  // Counted as typed: a username is compared exactly, so an account's failures are those typed exactly so.
  account: `account:${username.slice(0, 128)}`,
  address: `address:${address.slice(0, 64)}`,
})

/**
 * Seconds to wait before the next sign-in of these subjects may be tried (0: it may now): once an account or an
 * address reached its failures within `sign_in_window`, until the oldest of them leaves the window. Counted in the
 * database, so every HTTP process (and every machine) sees the same count. A refused attempt is not counted: an
 * attacker cannot lengthen the wait, and the owner may sign in as soon as it ends.
 */
export async function signInWait(
  em: EntityManager,
  who: SignInSubjects,
  config: ConsoleConfig,
  now = new Date(),
): Promise<number> {
  const since = new Date(now.getTime() - config.sign_in_window * 1000)
  const { account, address } = subjectsOf(who)
  const limits: [string, number][] = [
    [account, config.sign_in_failures_per_account],
    [address, config.sign_in_failures_per_address],
  ]
  let wait = 0
  for (const [subject, limit] of limits) {
    const failures = await em.find(
      SignInFailureEntity,
      { subject, failedAt: { $gt: since } },
      { orderBy: { failedAt: 'desc' }, limit, fields: ['failedAt'] },
    )
    if (failures.length < limit) continue
    // The limit-th newest failure leaves the window first among those that keep the count at the limit.
    const leaves = failures[limit - 1]!.failedAt.getTime() + config.sign_in_window * 1000
    wait = Math.max(wait, Math.ceil((leaves - now.getTime()) / 1000))
  }
  return Math.max(wait, 0)
}

/** Counts a failed sign-in against its account and its address. */
export async function recordSignInFailure(em: EntityManager, who: SignInSubjects, now = new Date()): Promise<void> {
  const { account, address } = subjectsOf(who)
  em.create(SignInFailureEntity, { subject: account, failedAt: now })
  em.create(SignInFailureEntity, { subject: address, failedAt: now })
  await em.flush()
}

/** Forgets an account's failures once its owner signed in. */
export async function clearAccountFailures(em: EntityManager, username: string): Promise<void> {
  await em.nativeDelete(SignInFailureEntity, { subject: subjectsOf({ username, address: '' }).account })
}

/** Removes the failures that left the window by `now`; answers how many. */
export function purgeSignInFailures(em: EntityManager, config: ConsoleConfig, now: Date): Promise<number> {
  return em.nativeDelete(SignInFailureEntity, {
    failedAt: { $lte: new Date(now.getTime() - config.sign_in_window * 1000) },
  })
}
