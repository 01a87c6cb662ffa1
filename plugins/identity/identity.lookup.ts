import { type HttpContext, forbidden, notFound } from '../../src/kernel/index.js'
import { type Group, GroupEntity } from './group.entity.js'
import { type ProfileGrant, type UserView, userQueries } from './user.queries.js'

/**
 * The user named by `:username`, from committed data (the kernel reader: user info is a hot
 * read), once the caller may do `flag` (a profile flag: `user.view`, `user.edit`, ...) on the
 * user's platform. Users are visible to those who see their platform and hold `user.view`;
 * with `self`, a user acting on their own record needs nothing. 404 when the caller may not
 * see the user, 403 when they may but not do that.
 */
export async function visibleUser(c: HttpContext, flag: string, options: { self?: boolean } = {}): Promise<UserView> {
  const username = c.param('username')
  const user = await userQueries.byUsername(c.reader, username)
  if (!user) throw notFound(`No user "${username}".`)
  if (options.self && user.id === c.principal.id) return user
  await c.authz.requireProfile(c.principal, flag, user.platformId, { name: username, kind: 'user', see: 'user.view' })
  return user
}

/**
 * The group named by the `:group` path parameter (platform loaded), once the caller's
 * profile holds `flag` (`group.view`, `group.edit`, ...) on the group's platform. Groups
 * are visible to those who see the platform and hold `group.view`.
 */
export async function groupFromPath(c: HttpContext, flag: string): Promise<Group> {
  const slug = c.param('group')
  const group = await c.em.findOne(GroupEntity, { slug }, { populate: ['platform'] })
  if (!group) throw notFound(`No group "${slug}".`)
  await c.authz.requireProfile(c.principal, flag, group.platform.id, { name: slug, kind: 'group', see: 'group.view' })
  return group
}

/**
 * 403 unless the caller holds every flag of `permissions` (installation administrators hold
 * all): nobody hands out, or acts on, more power than they have.
 */
export function requireHeld(c: HttpContext, permissions: readonly string[], what: string): void {
  const missing = permissions.filter((flag) => !c.authz.hasProfileFlag(c.principal, flag))
  if (missing.length) throw forbidden(`${what} grants permissions you do not hold: ${missing.join(', ')}.`)
}

/** The profile a user has now (for the rule that nobody acts on a user more powerful than them). */
export async function currentProfile(c: HttpContext, user: UserView): Promise<ProfileGrant> {
  const profile = await userQueries.profile(c.reader, user.profileSlug)
  if (!profile) throw notFound(`No user "${user.username}".`)
  return profile
}
