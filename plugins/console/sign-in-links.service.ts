import { type EntityManager, type LinkBuilder, UserError, serviceKey } from '../../src/kernel/index.js'
import { randomToken } from '../../src/shared/secrets.js'
import { UserEntity } from '../identity/index.js'
import type { ConsoleConfig } from './console.config.js'
import { SignInLinkEntity } from './console.entities.js'
import { isTokenShaped, tokenHash } from './sessions.service.js'

/** Why a sign-in link is refused. */
export type SignInLinkProblem = 'unknown' | 'used' | 'expired'

/** What is known of a link without using it (the page where its user chooses a password). */
export type SignInLinkView = { ok: true; userId: number; username: string } | { ok: false; problem: SignInLinkProblem }

/** A new link's token (shown once, stored hashed) and its expiry. */
export interface IssuedLink {
  token: string
  expiresAt: Date
}

/** Makes a sign-in link for a user, usable once within `ttlSeconds`. */
export async function issueSignInLink(
  em: EntityManager,
  userId: number,
  ttlSeconds: number,
  now = new Date(),
): Promise<IssuedLink> {
  const token = randomToken(43)
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000)
  em.create(SignInLinkEntity, {
    tokenHash: tokenHash(token),
    user: em.getReference(UserEntity, userId),
    createdAt: now,
    expiresAt,
    usedAt: null,
  })
  await em.flush()
  return { token, expiresAt }
}

/** Reads a link without using it: its user, or why it cannot be used. */
export async function peekSignInLink(em: EntityManager, token: string, now = new Date()): Promise<SignInLinkView> {
  if (!isTokenShaped(token)) return { ok: false, problem: 'unknown' }
  const link = await em.findOne(SignInLinkEntity, { tokenHash: tokenHash(token) }, { populate: ['user'] })
  if (!link || !link.user.isActive) return { ok: false, problem: 'unknown' }
  if (link.usedAt) return { ok: false, problem: 'used' }
  if (link.expiresAt.getTime() <= now.getTime()) return { ok: false, problem: 'expired' }
  return { ok: true, userId: link.user.id, username: link.user.username }
}

/**
 * Uses a link once: of concurrent uses exactly one gets its user (one conditional update, unused and unexpired),
 * the others why not. Run it in the transaction that sets the password, so a failure leaves the link usable.
 */
export async function consumeSignInLink(em: EntityManager, token: string, now = new Date()): Promise<SignInLinkView> {
  const view = await peekSignInLink(em, token, now)
  if (!view.ok) return view
  const taken = await em.nativeUpdate(
    SignInLinkEntity,
    { tokenHash: tokenHash(token), usedAt: null, expiresAt: { $gt: now } },
    { usedAt: now },
  )
  return taken === 1 ? view : { ok: false, problem: 'used' }
}

/** Removes the links that expired by `now` (used or not); answers how many. */
export function purgeSignInLinks(em: EntityManager, now: Date): Promise<number> {
  return em.nativeDelete(SignInLinkEntity, { expiresAt: { $lte: now } })
}

/** A sign-in link as printed: the address to open, once, before it expires. */
export interface PrintedSignInLink {
  username: string
  url: string
  expires_at: string
}

/** Makes sign-in links by username (`mediactl user sign-in-link`, the first `init`, tests). */
export interface SignInLinks {
  /** A one-time link for `username`, valid `console.sign_in_link_ttl` seconds; UserError for an unknown or inactive user. */
  issue(username: string): Promise<PrintedSignInLink>
}

/** What the console exposes to its command and to `mediactl init` (through src/catalog.ts). */
export const SIGN_IN_LINKS = serviceKey<SignInLinks>('console.sign-in-links')

export function signInLinks(em: () => EntityManager, links: LinkBuilder, config: ConsoleConfig): SignInLinks {
  return {
    async issue(username) {
      const fork = em()
      const user = await fork.findOne(UserEntity, { username })
      if (!user) throw new UserError(`no user "${username}": list them with GET /platform/<slug>/users`)
      if (!user.isActive)
        throw new UserError(`the user "${username}" is inactive: make them active first (is_active 1)`)
      const link = await issueSignInLink(fork, user.id, config.sign_in_link_ttl)
      return { username, url: links.url('console', 'link', link.token), expires_at: link.expiresAt.toISOString() }
    },
  }
}
