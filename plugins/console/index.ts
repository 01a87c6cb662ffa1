import { type SessionsPort, definePlugin } from '../../src/kernel/index.js'
import '../identity/index.js'
import { consoleConfigSchema } from './console.config.js'
import type { ConsoleDeps } from './console.deps.js'
import { ConsoleSessionEntity, SignInFailureEntity, SignInLinkEntity } from './console.entities.js'
import { consolePageRoutes } from './console-page.routes.js'
import { isSecureSite, sessionCookieName } from './console-cookies.js'
import init from './migrations/20261129-console-init.js'
import { endUserSessions, liveSession, purgeSessions } from './sessions.service.js'
import { SIGN_IN_LINKS, purgeSignInLinks, signInLinks } from './sign-in-links.service.js'
import { consoleCommands } from './console.commands.js'
import { signInRoutes } from './sign-in.routes.js'
import { signInLinkRoutes } from './sign-in-link.routes.js'
import { purgeSignInFailures } from './sign-in-throttle.js'

export { type PrintedSignInLink, SIGN_IN_LINKS, type SignInLinks, issueSignInLink } from './sign-in-links.service.js'
export { consoleCommands } from './console.commands.js'

/**
 * The console: `/console`, where people sign in with a username and password and work in a browser. Its sessions
 * live in the database; the kernel accepts one on an API request only with the session's CSRF header and a
 * same-origin `Origin` (src/kernel/http/session-auth.ts): the console's browser code is a client of the API like
 * any other (docs/console.md).
 */
export default definePlugin({
  name: 'console',
  dependsOn: ['identity'],
  provides: ['sessions'],
  config: consoleConfigSchema,
  entities: [ConsoleSessionEntity, SignInLinkEntity, SignInFailureEntity],
  migrations: [init],
  commands: consoleCommands,
  register(ctx) {
    const secure = isSecureSite(ctx.kernelConfig.base_url)
    const deps: ConsoleDeps = {
      config: ctx.config,
      secure,
      cookieName: sessionCookieName(secure),
      credentials: ctx.port('credentials'),
    }
    const sessions: SessionsPort = {
      cookieName: deps.cookieName,
      async find(id) {
        const session = await liveSession(ctx.em(), id, deps.config)
        if (!session) return null
        // The user as Digest would see them: active, with their profile's flags as of now.
        const user = await deps.credentials.findByUsername(session.username)
        if (!user || !user.isActive) return null
        const { ha1: _ha1, isActive: _active, ...principal } = user
        return { principal, csrf: session.csrf }
      },
    }
    ctx.provide('sessions', sessions)
    ctx.expose(
      SIGN_IN_LINKS,
      signInLinks(() => ctx.em(), ctx.links, deps.config),
    )
    ctx.routes((r) => signInRoutes(r, deps))
    ctx.routes((r) => consolePageRoutes(r, deps))
    ctx.routes((r) => signInLinkRoutes(r, deps))
    // The foreign keys cascade too; ending them explicitly keeps the outcome independent of it.
    ctx.on('user.deleting', ({ em, user }) => endUserSessions(em, [user.id]).then(() => undefined))
    // A new password through the API ends every session, the one that asked for it too (sign in again with it).
    ctx.on('user.password-changed', ({ em, userId }) => endUserSessions(em, [userId]).then(() => undefined))
    ctx.on('platform.users-deleting', ({ em, userIds }) => endUserSessions(em, userIds).then(() => undefined))
    // Run by `mediactl purge`, and in serving processes on `files.purge_schedule`.
    ctx.on('maintenance.purge', async ({ now, report }) => {
      const em = ctx.em()
      report['ended console sessions'] = await purgeSessions(em, deps.config, now)
      report['expired sign-in links'] = await purgeSignInLinks(em, now)
      report['old failed sign-ins'] = await purgeSignInFailures(em, deps.config, now)
    })
  },
})
