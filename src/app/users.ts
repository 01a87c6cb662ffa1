import { UserEntity, UserInputError, createUser, rotateApiKey } from '../../plugins/identity/index.js'
import { didYouMean } from '../shared/closest.js'
import { fieldErrorsLine } from './field-errors.js'
import { ProfileEntity } from '../../plugins/identity/index.js'
import { PlatformEntity } from '../../plugins/platforms/index.js'
import { HttpError } from '../kernel/index.js'
import { createLogger } from '../kernel/log.js'
import { type BootRequest, bootMigratedKernel } from './boot.js'

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
export async function createUserCommand(options: CreateUserOptions): Promise<UserKey> {
  const kernel = await bootMigratedKernel({ logger: createLogger('warn', 2), ...options })
  try {
    const em = kernel.em()
    const platform = await em.findOne(PlatformEntity, { slug: options.platform })
    if (!platform)
      throw new UserInputError(
        `no platform "${options.platform}": list them with GET /platforms or create one with "mediactl platform create"`,
      )
    const profiles = await em.find(ProfileEntity, { platform }, { orderBy: { id: 'asc' } })
    let profile = undefined
    if (options.profile) {
      profile = profiles.find((p) => p.slug === options.profile)
      if (!profile) {
        const valid = profiles.map((p) => `${p.slug} (${p.name})`).join(', ')
        throw new UserInputError(
          `no profile "${options.profile}" on platform ${platform.slug}${didYouMean(
            options.profile,
            profiles.map((p) => p.slug),
          )}; its profiles: ${valid || 'none'}`,
        )
      }
    } else if (!options.admin) {
      profile = leastPrivileged(profiles)
      if (!profile)
        throw new UserInputError(
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
        throw new UserInputError(fieldErrorsLine(error, { username: options.username, email: options.email }))
      throw error
    })
    return { username: user.username, api_key: apiKey, platform: platform.slug, profile: user.profile.slug }
  } finally {
    await kernel.close()
  }
}

/** Rotates a user's API key; the old key stops working at once. */
export async function rotateKeyCommand(
  options: BootRequest & { username: string },
): Promise<{ username: string; api_key: string }> {
  const kernel = await bootMigratedKernel({ logger: createLogger('warn', 2), ...options })
  try {
    const em = kernel.em()
    const user = await em.findOne(UserEntity, { username: options.username })
    if (!user) throw new UserInputError(`no user "${options.username}"`)
    return { username: user.username, api_key: await rotateApiKey(em, user, kernel.config.auth.realm) }
  } finally {
    await kernel.close()
  }
}
