import { UserEntity, UserInputError, createUser, rotateApiKey } from '../../plugins/identity/index.js'
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
    let profile = undefined
    if (options.profile) {
      profile = await em.findOne(ProfileEntity, { slug: options.profile, platform })
      if (!profile) throw new UserInputError(`no profile "${options.profile}" on platform ${platform.slug}`)
    }
    const { user, apiKey } = await createUser(em, {
      ...options,
      platform,
      profile,
      realm: kernel.config.auth.realm,
    }).catch((error: unknown) => {
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
