import {
  type CommandContext,
  FieldReader,
  type Form,
  type TimestampDialect,
  UserError,
  defineCommand,
} from '../../src/kernel/index.js'
import { type Platform, PlatformEntity } from './platform.entity.js'
import { createPlatform, namedPlatform, readPlatformFields, updatePlatform } from './platform.service.js'

/** A platform as `mediactl platform create|update --json` prints it. */
export interface PlatformSummary {
  slug: string
  name: string
  max_users: number
  max_space: number
  /** The platform's own date-time dialect; null: the installation's (`api.timestamps`). */
  timestamps: TimestampDialect | null
  url: string
}

function summary(ctx: CommandContext, platform: Platform): PlatformSummary {
  return {
    slug: platform.slug,
    name: platform.name,
    max_users: platform.maxUsers,
    max_space: platform.maxSpace,
    timestamps: platform.timestamps ?? null,
    url: ctx.links.url('platform', platform.slug),
  }
}

/** The flags as the API's fields, to be read by the API's own rules (readPlatformFields). */
function form(flags: { name?: string; 'max-users'?: number; 'max-space'?: number; timestamps?: string }): Form {
  const fields: Form = {}
  if (flags.name !== undefined) fields.name = flags.name
  if (flags['max-users'] !== undefined) fields.max_users = String(flags['max-users'])
  if (flags['max-space'] !== undefined) fields.max_space = String(flags['max-space'])
  // `default`: sent empty, as PUT /platform/<slug> clears it (back to api.timestamps).
  if (flags.timestamps !== undefined) fields.timestamps = flags.timestamps === 'default' ? '' : flags.timestamps
  return fields
}

const platformCreate = defineCommand({
  name: 'platform create',
  summary: 'Create a platform (tenant) with its default profiles and roles.',
  description:
    'The fields follow the rules of POST /platforms (docs/api/platforms.md), checked by the same code; the slug is made from the name and never changes.',
  examples: ['mediactl platform create --name "Campus TV" --max-users 50 --max-space 107374182400'],
  flags: {
    name: { type: 'string', description: 'Name (at most 255 characters); the slug is made from it', required: true },
    'max-users': { type: 'integer', description: 'Most users; 0 is unlimited', default: 0 },
    'max-space': { type: 'integer', description: 'Most bytes for all files; 0 is unlimited', default: 0 },
    timestamps: {
      type: 'string',
      description: "How date-times are answered to this platform's clients [default: api.timestamps]",
      options: ['iso8601', 'unix'],
    },
  },
  async run(ctx, { flags }) {
    const input = readPlatformFields(new FieldReader(form(flags), 'create'))
    const platform = await createPlatform(ctx.emit, ctx.em(), {
      name: input.name!,
      maxUsers: input.maxUsers!,
      maxSpace: input.maxSpace!,
      timestamps: input.timestamps,
    })
    return summary(ctx, platform)
  },
  print: (result, out) => out.line(`Created platform ${result.slug}: ${result.url}`),
})

const platformUpdate = defineCommand({
  name: 'platform update',
  summary: "Change a platform: its name, quotas, or the date-time dialect of its clients' answers.",
  description: `Only the flags given change, checked by the code of PUT /platform/<slug>. --timestamps unix makes every answer to this platform's users carry
date-times as Unix seconds (as the original hosted service did, for clients that parse them as integers);
--timestamps default goes back to the installation's api.timestamps.`,
  examples: [
    'mediactl platform update campus-tv --timestamps unix',
    'mediactl platform update campus-tv --max-space 107374182400',
  ],
  args: { slug: { description: 'Slug of the platform', required: true } },
  flags: {
    name: { type: 'string', description: 'New name (at most 255 characters); the slug stays' },
    'max-users': { type: 'integer', description: 'Most users; 0 is unlimited' },
    'max-space': { type: 'integer', description: 'Most bytes for all files; 0 is unlimited' },
    timestamps: {
      type: 'string',
      description: "How date-times are answered to this platform's clients; default: the installation's api.timestamps",
      options: ['iso8601', 'unix', 'default'],
    },
  },
  async run(ctx, { flags, args }) {
    const fields = form(flags)
    if (!Object.keys(fields).length) {
      throw new UserError('Nothing to change', { hint: 'give --name, --max-users, --max-space or --timestamps' })
    }
    const changes = readPlatformFields(new FieldReader(fields, 'update'))
    const { id } = await namedPlatform(ctx.reader, args.slug)
    const em = ctx.em()
    const platform = await em.findOneOrFail(PlatformEntity, { id })
    await updatePlatform(em, platform, changes)
    return summary(ctx, platform)
  },
  print: (result, out) =>
    out.line(
      `Updated platform ${result.slug}: timestamps ${result.timestamps ?? 'default (api.timestamps)'}, ${result.url}`,
    ),
})

/** The platforms plugin's commands (its manifest's `commands`). */
export const platformCommands = [platformCreate, platformUpdate]
