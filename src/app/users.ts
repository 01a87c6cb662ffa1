import { UserEntity, createUser, rotateApiKey } from '../../plugins/identity/index.js'
import { didYouMean } from '../shared/closest.js'
import { fieldErrorsLine } from './field-errors.js'
import { ProfileEntity } from '../../plugins/identity/index.js'
import { PlatformEntity } from '../../plugins/platforms/index.js'
import { HttpError, UserError } from '../kernel/index.js'
import { type BootRequest, withKernel } from './boot.js'

export interface CreateUserOptions extends BootRequest {
  platform: string
  profile?: string
  username: string
  email: string
  password?: string
  admin?: boolean
}

/**
 * The profile holding the fewest permissions (the oldest on a tie): a user made without
 * `--profile` gets no more than it needs, Viewer on a platform with the default profiles.
 */
function leastPrivileged<P extends { permissions: string[] }>(profiles: P[]): P | undefined {
  return profiles.reduce<P | undefined>(
    (best, p) => (!best || p.permissions.length < best.permissions.length ? p : best),
    undefined,
  )
}

export interface UserKey {
  username: string
  api_key: string
  platform: string
  profile: string
}

/**
 * Creates a user from the command line, with the API's rules for the fields and the
 * platform's `max_users`; returns the API key, shown once.
 */
export function createUserCommand(options: CreateUserOptions): Promise<UserKey> {
  return withKernel(options, async (kernel) => {
    const em = kernel.em()
    const platform = await em.findOne(PlatformEntity, { slug: options.platform })
    if (!platform)
      throw new UserError(
        `no platform "${options.platform}": list them with GET /platforms or create one with "mediactl platform create"`,
      )
    const profiles = await em.find(ProfileEntity, { platform }, { orderBy: { id: 'asc' } })
    let profile = undefined
    if (options.profile) {
      profile = profiles.find((p) => p.slug === options.profile)
      if (!profile) {
        const valid = profiles.map((p) => `${p.slug} (${p.name})`).join(', ')
        throw new UserError(
          `no profile "${options.profile}" on platform ${platform.slug}${didYouMean(
            options.profile,
            profiles.map((p) => p.slug),
          )}; its profiles: ${valid || 'none'}`,
        )
      }
    } else if (!options.admin) {
      profile = leastPrivileged(profiles)
      if (!profile)
        throw new UserError(
          `platform ${platform.slug} has no profile: create one (POST /platform/${platform.slug}/profiles) or pass --admin`,
        )
    }
    const { user, apiKey } = await createUser(
      em,
      {
        ...options,
        platform,
        profile,
        realm: kernel.config.auth.realm,
      },
      kernel.emit,
    ).catch((error: unknown) => {
      if (error instanceof HttpError && error.status === 412)
        throw new UserError(fieldErrorsLine(error, { username: options.username, email: options.email }))
      throw error
    })
    return { username: user.username, api_key: apiKey, platform: platform.slug, profile: user.profile.slug }
  })
}

/** Rotates a user's API key; the old key stops working at once. */
export function rotateKeyCommand(
  options: BootRequest & { username: string },
): Promise<{ username: string; api_key: string }> {
  return withKernel(options, async (kernel) => {
    const em = kernel.em()
    const user = await em.findOne(UserEntity, { username: options.username })
    if (!user) throw new UserError(`no user "${options.username}"`)
    return { username: user.username, api_key: await rotateApiKey(em, user, kernel.config.auth.realm) }
  })
}
