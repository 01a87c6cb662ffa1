import { type Emit, type EntityManager, HttpError, UserError, isInstanceAdmin } from '../../src/kernel/index.js'
import { type Platform, PlatformEntity, createPlatform } from '../platforms/index.js'
import { fieldErrorsLine } from './user.commands.js'
import { UserEntity } from './user.entity.js'
import { createUser } from './user.service.js'

export interface InstallationAdminOptions {
  /** Name of the first platform, made when there is none. */
  platformName: string
  username: string
  email: string
  password?: string
  /** The Digest realm the API key is hashed for. */
  realm: string
}

/** What `ensureInstallationAdmin` did: nothing, when an installation administrator existed already. */
export interface InstallationAdmin {
  /** The platform it made, when there was none. */
  madePlatform?: { name: string; slug: string }
  /** The administrator it made, with the API key shown once. */
  admin?: { username: string; apiKey: string; platform: string }
}

/**
 * `mediactl init`'s first administrator: when no installation administrator exists, makes
 * one (on the oldest platform, made first when there is none) with the API's rules for the
 * fields; a refused field is the operator's mistake (UserError naming the flag).
 */
export async function ensureInstallationAdmin(
  em: EntityManager,
  emit: Emit,
  options: InstallationAdminOptions,
): Promise<InstallationAdmin> {
  const users = await em.find(UserEntity, {}, { populate: ['profile'] })
  const hasAdmin = users.some((u) =>
    isInstanceAdmin({ id: u.id, username: u.username, platformId: 0, flags: new Set(u.profile.permissions) }),
  )
  if (hasAdmin) return {}
  const made: InstallationAdmin = {}
  let platform: Platform | undefined = (await em.find(PlatformEntity, {}, { orderBy: { id: 'asc' }, limit: 1 }))[0]
  if (!platform) {
    platform = await createPlatform(emit, em, { name: options.platformName, maxUsers: 0, maxSpace: 0 })
    made.madePlatform = { name: platform.name, slug: platform.slug }
  }
  const created = await createUser(em, {
    platform,
    username: options.username,
    email: options.email,
    password: options.password,
    admin: true,
    realm: options.realm,
  }).catch((error: unknown) => {
    if (error instanceof HttpError && error.status === 412) {
      throw new UserError(
        `cannot create the administrator: ${fieldErrorsLine(error.fields, { username: options.username, email: options.email })}`,
      )
    }
    throw error
  })
  made.admin = { username: created.user.username, apiKey: created.apiKey, platform: platform.slug }
  return made
}
