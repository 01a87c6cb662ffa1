import { type HttpContext, forbidden, type Tokens } from '../../src/kernel/index.js'

/** The purpose of resource media tokens: a token made for anything else (a file, an upload) opens nothing here. */
export const RESOURCE_TOKEN_PURPOSE = 'media.resource'

/** What a resource media token carries: the resource it opens, by id and slug. */
interface ResourceGrant {
  r: number
  s: string
}

const HOUR_MS = 3600_000

/**
 * A token opening the media of one resource (thumbnail, flavors, HLS, subtitles, player) for
 * at least `ttlSeconds`. The expiry is rounded up to the hour: every link made within that
 * hour is the same URL, so players and browsers cache what they fetched with it.
 */
export function resourceToken(
  tokens: Tokens,
  resource: { id: number; slug: string },
  ttlSeconds: number,
  now = Date.now(),
): string {
  const expiresAt = new Date(Math.ceil((now + ttlSeconds * 1000) / HOUR_MS) * HOUR_MS)
  return tokens.sign(RESOURCE_TOKEN_PURPOSE, { r: resource.id, s: resource.slug } satisfies ResourceGrant, expiresAt)
}

/**
 * The resource id the request's token (already verified by the kernel) opens, checked against
 * the slug of the path before any lookup: 403 for a token of another resource.
 */
export function requireResourceGrant(c: HttpContext, slug: string): number {
  const grant = c.token as Partial<ResourceGrant> | undefined
  if (!grant || typeof grant.r !== 'number' || grant.s !== slug) {
    throw forbidden('The token of this link opens another resource: fetch the links of this resource (with-token).')
  }
  return grant.r
}
