import { randomBytes } from 'node:crypto'
import { AccessEntity, ProfileEntity, RoleEntity, UserEntity, createUser } from '../../../plugins/identity/index.js'
import { PlatformEntity } from '../../../plugins/platforms/index.js'
import type { TestApp } from '../../helpers/app.js'
import type { DigestClient } from '../../helpers/digest-client.js'
import { type XmlObject, text } from '../../helpers/xml.js'
export { DECLARATION, INVALID, NEEDS, XML_TYPE, expectError, xmlOf } from '../../helpers/answers.js'

/** Shared by the groups, roles and profiles suites: answer checks and users made through the ORM. */

/** The 403 of an escalation attempt. */
export const NOT_HELD = (flags: string[]): string =>
  `You may not grant permissions you do not hold: ${flags.join(', ')}.`

/** The keys of an element, attributes included, sorted. */
export const keysOf = (node: XmlObject): string[] => Object.keys(node).sort()

/** The flag table of a `permissions` element as `model.action` → '1' | '0', in document order. */
export function flagTable(permissions: XmlObject): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [model, actions] of Object.entries(permissions)) {
    for (const [action, value] of Object.entries(actions as XmlObject)) out[`${model}.${action}`] = text(value)
  }
  return out
}

/** The expected table of a catalogue: 1 for the granted flags, 0 for every other. */
export function expectedTable(catalogue: Record<string, readonly string[]>, granted: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [model, actions] of Object.entries(catalogue)) {
    for (const action of actions) out[`${model}.${action}`] = granted.includes(`${model}.${action}`) ? '1' : '0'
  }
  return out
}

/** Creates, through the ORM, a profile with exactly these flags on a platform and returns its slug. */
export async function makeProfile(app: TestApp, flags: string[], platformSlug = 'default', quota = 0): Promise<string> {
  const em = app.kernel.em()
  const platform = await em.findOneOrFail(PlatformEntity, { slug: platformSlug })
  const profile = em.create(ProfileEntity, {
    slug: `p-${randomBytes(6).toString('hex')}`,
    name: 'Test profile',
    quota,
    permissions: flags,
    platform,
    createdAt: new Date(),
  })
  await em.flush()
  return profile.slug
}

/** Creates a user whose profile holds exactly `flags` (through the ORM) and returns its client. */
export async function userWithFlags(
  app: TestApp,
  username: string,
  flags: string[],
  platformSlug = 'default',
): Promise<DigestClient> {
  const slug = await makeProfile(app, flags, platformSlug)
  return userWithProfile(app, username, slug)
}

/** Creates a user with an existing profile (by slug) and returns its client. */
export async function userWithProfile(app: TestApp, username: string, profileSlug: string): Promise<DigestClient> {
  const em = app.kernel.em()
  const profile = await em.findOneOrFail(ProfileEntity, { slug: profileSlug }, { populate: ['platform'] })
  const { apiKey } = await createUser(em, {
    platform: profile.platform,
    profile,
    username,
    email: `${username}@example.org`,
    realm: app.kernel.config.auth.realm,
  })
  return app.clientFor(username, apiKey)
}

/** Grants a role (by slug) to a user on their platform, with an access row made through the ORM. */
export async function grantOnPlatform(app: TestApp, username: string, roleSlug: string): Promise<void> {
  const em = app.kernel.em()
  const user = await em.findOneOrFail(UserEntity, { username }, { populate: ['platform'] })
  const role = await em.findOneOrFail(RoleEntity, { slug: roleSlug })
  em.create(AccessEntity, {
    publicId: randomBytes(9).toString('base64url').slice(0, 12),
    user,
    group: null,
    objectKind: 'platform',
    objectId: user.platform.id,
    role,
    platform: user.platform,
    createdAt: new Date(),
  })
  await em.flush()
}
