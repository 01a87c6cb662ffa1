import { type HttpContext, notFound } from '../../src/kernel/index.js'
import { type PlatformView, platformQueries } from './platform.queries.js'

/** The access-tree kind of platforms (the root of the tree). */
export const PLATFORM_KIND = 'platform'

/**
 * The platform named by a path parameter (default `:platform`), after the authorization
 * service allowed `flag` on it: a role flag (`platform.view`, `platform.edit`) or, with
 * `profile`, a profile flag gating a platform-level capability (`user.view`, ...). Answers
 * 404 when the user may not see the platform, 403 when they may but not do that.
 */
export async function platformFromPath(
  c: HttpContext,
  flag: string,
  options: { profile?: boolean; param?: string } = {},
): Promise<PlatformView> {
  const slug = c.param(options.param ?? 'platform')
  const platform = await platformQueries.bySlug(c.reader, slug)
  if (!platform) throw notFound(`No platform "${slug}".`)
  const ref = { kind: PLATFORM_KIND, id: platform.id }
  if (options.profile) await c.authz.requireProfile(c.principal, flag, platform.id, { name: slug })
  else await c.authz.require(c.principal, flag, ref, { name: slug })
  return platform
}
