import { type Router, forbidden, invalid, notFound, reply, xml } from '../../src/kernel/index.js'
import { UserEntity } from '../identity/index.js'
import type { ConsoleDeps } from './console.deps.js'
import { issueSignInLink } from './sign-in-links.service.js'

/**
 * `POST /user/<username>/sign_in_link`, an extension of the contract (docs/decisions/0261): a one-time link where the
 * user chooses a password, answered once, for the console's people section (the CLI's `mediactl user sign-in-link`
 * made them alone before). Whoever may edit the user may give them one: a link sets a password, as `PUT` can.
 */
export function signInLinkRoutes(r: Router, deps: ConsoleDeps): void {
  r.post(
    '/user/:username/sign_in_link',
    async (c) => {
      const username = c.param('username')
      const user = await c.em.findOne(UserEntity, { username }, { populate: ['platform', 'profile'] })
      if (!user) throw notFound(`No user "${username}".`)
      await c.authz.requireProfile(c.principal, 'user.edit', user.platform.id, {
        name: username,
        kind: 'user',
        see: 'user.view',
      })
      // Nobody acts on someone more powerful: a link to their account would hand over their flags.
      const missing = user.profile.permissions.filter((flag) => !c.authz.hasProfileFlag(c.principal, flag))
      if (missing.length) {
        throw forbidden(`The profile of "${username}" grants permissions you do not hold: ${missing.join(', ')}.`)
      }
      if (!user.isActive) {
        throw invalid(
          { is_active: 'is 0: an inactive user cannot sign in' },
          `The user "${username}" is inactive: make them active first (is_active 1).`,
        )
      }
      const link = await issueSignInLink(c.em, user.id, deps.config.sign_in_link_ttl)
      const body = xml.el('sign_in_link', { href: c.links.url('user', username) }, [
        xml.str('username', username),
        xml.str('url', c.links.url('console', 'link', link.token)),
        xml.date('expires_at', link.expiresAt),
      ])
      return reply.xml(201, body, { 'Cache-Control': 'no-store' })
    },
    {
      permission:
        "profile user.edit on the user's platform, on a user whose profile grants only flags the caller holds; the user active",
    },
  )
}
