import { type FieldErrors, UserError, defineCommand } from '../../src/kernel/index.js'
import { didYouMean } from '../../src/shared/closest.js'
import { namedPlatform } from '../platforms/index.js'
import { ProfileEntity } from './profile.entity.js'
import { UserEntity } from './user.entity.js'
import { createUser, rotateApiKey } from './user.service.js'

/** What `mediactl user create --json` prints: the key is shown this once. */
export interface CreatedUser {
  username: string
  api_key: string
  platform: string
  profile: string
}

/**
 * Refused user fields as one line for the terminal: `the username "bob" is already used;
 * choose another one`. Passwords are never echoed.
 */
export function fieldErrorsLine(fields: FieldErrors, values: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .map(([field, message]) => {
      const value = field === 'password' ? undefined : values[field]
      const subject = value === undefined ? `the ${field}` : `the ${field} "${value}"`
      return `${subject} ${message}${message.startsWith('is already used') ? '; choose another one' : ''}`
    })
    .join('; ')
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

const userCreate = defineCommand({
  name: 'user create',
  summary: 'Create a user and print its API key once.',
  description: `The API key authenticates the user (HTTP Digest, username and API key). It is shown once and
never stored: keep it, or rotate it with "mediactl user key <username>".
Without --profile the user gets the platform's least-privileged profile (Viewer on a new platform);
--admin makes an installation administrator (every profile flag). The fields follow the rules of
POST /platform/<slug>/users (docs/api/identity.md), checked by the same code, and the platform's max_users applies.`,
  examples: [
    'mediactl user create --platform default --username alice --email alice@example.org',
    'mediactl user create --platform default --username carol --email carol@example.org --profile default-publisher',
    'mediactl user create --platform default --username root2 --email ops@example.org --admin --json',
  ],
  flags: {
    platform: { type: 'string', description: 'Slug of the platform the user belongs to', required: true },
    profile: {
      type: 'string',
      description:
        "Slug of the user's profile (a wrong one lists the platform's profiles) [default: the platform's least-privileged profile]",
    },
    username: {
      type: 'string',
      description:
        'Login name, unique across the installation: at most 128 letters, digits, ".", "_", "-" or "@", starting with a letter or a digit',
      required: true,
    },
    email: { type: 'string', description: 'E-mail address, unique on the platform', required: true },
    password: {
      type: 'string',
      description: 'Password (at most 128 characters), for the password check endpoint (optional)',
    },
    admin: { type: 'boolean', description: 'Make an installation administrator' },
  },
  async run(ctx, { flags }): Promise<CreatedUser> {
    const platform = await namedPlatform(ctx.reader, flags.platform)
    const em = ctx.em()
    const profiles = await em.find(ProfileEntity, { platform: platform.id }, { orderBy: { id: 'asc' } })
    let profile = undefined
    if (flags.profile) {
      profile = profiles.find((p) => p.slug === flags.profile)
      if (!profile) {
        const valid = profiles.map((p) => `${p.slug} (${p.name})`).join(', ')
        throw new UserError(
          `no profile "${flags.profile}" on platform ${platform.slug}${didYouMean(
            flags.profile,
            profiles.map((p) => p.slug),
          )}; its profiles: ${valid || 'none'}`,
        )
      }
    } else if (!flags.admin) {
      profile = leastPrivileged(profiles)
      if (!profile) {
        throw new UserError(`platform ${platform.slug} has no profile`, {
          hint: `create one (POST /platform/${platform.slug}/profiles) or pass --admin`,
        })
      }
    }
    // The fields are checked by the rules of POST /platform/<slug>/users (readUserFields), in createUser.
    const { user, apiKey } = await createUser(
      em,
      {
        platform,
        profile,
        admin: flags.admin,
        username: flags.username,
        email: flags.email,
        password: flags.password,
        realm: ctx.kernelConfig.auth.realm,
      },
      ctx.emit,
    )
    return { username: user.username, api_key: apiKey, platform: platform.slug, profile: user.profile.slug }
  },
  refused: (fields, { flags }) => fieldErrorsLine(fields, { username: flags.username, email: flags.email }),
  print(result, out) {
    out.line(`Created user ${result.username} on platform ${result.platform} (profile ${result.profile}).`)
    out.line(`API key (shown once, keep it): ${result.api_key}`)
  },
})

const userKey = defineCommand({
  name: 'user key',
  summary: "Rotate a user's API key and print the new one once.",
  description: `The old key stops working at once. The key is bound to the username (Digest HA1), so a user
whose username changes needs a new key: run this command after renaming.`,
  examples: ['mediactl user key alice', 'mediactl user key alice --json'],
  args: { username: { description: 'The user whose key to rotate', required: true } },
  async run(ctx, { args }): Promise<{ username: string; api_key: string }> {
    const em = ctx.em()
    const user = await em.findOne(UserEntity, { username: args.username })
    if (!user) throw new UserError(`no user "${args.username}"`)
    return { username: user.username, api_key: await rotateApiKey(em, user, ctx.kernelConfig.auth.realm) }
  },
  print(result, out) {
    out.line(`New API key for ${result.username} (shown once, keep it): ${result.api_key}`)
    // On stderr, so stdout stays the key line that scripts read.
    out.note(`The key is bound to the username: if ${result.username} is renamed, run this command again.`)
  },
})

/** The identity plugin's commands (its manifest's `commands`). */
export const userCommands = [userCreate, userKey]
