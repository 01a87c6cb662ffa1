import { type HttpContext, forbidden, type Tokens } from '../../src/kernel/index.js'

/** The purpose of media tokens: a token made for anything else (uploads) opens no media. */
export const MEDIA_TOKEN_PURPOSE = 'media.file'

/** What a media token carries: the file it opens, by id and slug. */
interface MediaGrant {
  f: number
  s: string
}

const HOUR_MS = 3600_000

/**
 * A token opening the media of one file for at least `ttlSeconds`. The expiry is rounded up
 * to the hour: every link made within that hour is the same URL, so players and browsers
 * cache what they fetched with it.
 */
export function mediaToken(tokens: Tokens, file: { id: number; slug: string }, ttlSeconds: number, now = Date.now()) {
  const expiresAt = new Date(Math.ceil((now + ttlSeconds * 1000) / HOUR_MS) * HOUR_MS)
  return tokens.sign(MEDIA_TOKEN_PURPOSE, { f: file.id, s: file.slug } satisfies MediaGrant, expiresAt)
}

/**
 * Checks that the request's token (already verified by the kernel: RouteOptions.tokenPurpose)
 * is bound to the file the path names; 403 otherwise. Bound by slug and id: compared with
 * the path before any lookup (a token says nothing of other slugs), and a slug reused by a
 * later file does not open it.
 */
export function requireGrantFor(c: HttpContext, slug: string): number {
  const grant = c.token as Partial<MediaGrant> | undefined
  if (!grant || typeof grant.f !== 'number' || grant.s !== slug) {
    throw forbidden('The token of this link opens another file: fetch the link of this file (with-token).')
  }
  return grant.f
}
