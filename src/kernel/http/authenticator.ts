import type { KernelServices } from '../services.js'
import { DigestAuth, credentialsHeader } from './digest.js'
import type { Authenticator } from './route-request.js'
import { SessionAuth } from './session-auth.js'

/**
 * The pipeline's authenticator: HTTP Digest, with nonce counts in the `nonceCounter` port
 * (shared by every process: a replayed header is refused whichever process it reaches) and
 * users from the `credentials` port; and, where a plugin provides the `sessions` port, a
 * browser session's cookie on a request without Digest credentials (session-auth.ts: only
 * with its CSRF header and a same-origin `Origin`). Throws when the server has no secret to
 * sign nonces with.
 */
export function digestAuthenticator(services: KernelServices): Authenticator {
  if (!services.secret) {
    throw new Error(`no server secret: run "mediactl init" (or set auth.secret / MEDIACTL_SECRET)`)
  }
  const digest = new DigestAuth(
    {
      realm: services.config.auth.realm,
      nonceTtl: services.config.auth.nonce_ttl,
      secret: services.secret,
      // One warn line per refused attempt, with address and username: fail2ban's input.
      onRefused: (refusal) => services.log.warn({ event: 'auth_failed', ...refusal }, 'authentication refused'),
    },
    services.ports.get('nonceCounter'),
  )
  const credentials = services.ports.get('credentials')
  const sessions = services.ports.has('sessions')
    ? new SessionAuth(services.ports.get('sessions'), () => new URL(`${services.links.base}/`).origin)
    : undefined
  return {
    authenticate: (req) => {
      const session = sessions && credentialsHeader(req) === undefined ? sessions.sessionId(req) : undefined
      if (session !== undefined) return sessions!.authenticate(req, session)
      return digest.authenticate(req, (username) => credentials.findByUsername(username))
    },
    challenge: () => digest.challenge(),
  }
}
