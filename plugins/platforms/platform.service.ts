import { LockMode } from '@mikro-orm/core'
import {
  type EntityManager,
  type Emit,
  type FieldReader,
  type Reader,
  UserError,
  freeSlug,
  notFound,
  retryOnConflict,
  type TimestampDialect,
  transaction,
} from '../../src/kernel/index.js'
import { type Platform, PlatformEntity } from './platform.entity.js'
import type { PlatformStats } from './platform.events.js'
import { type PlatformView, platformQueries } from './platform.queries.js'

/**
 * The platform row, locked until the transaction ends (PostgreSQL `select ... for update`;
 * SQLite has one writer at a time already). Writes that check a platform-wide rule (user
 * and space quotas, unique names) take it first, so concurrent requests cannot race.
 */
export async function lockPlatform(tx: EntityManager, id: number): Promise<Platform> {
  const platform = await tx.findOne(PlatformEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE })
  if (!platform) throw notFound('No such platform.')
  return platform
}

export interface PlatformInput {
  name: string
  maxUsers: number
  maxSpace: number
  /** The platform's own date-time dialect; absent or null: the installation's. */
  timestamps?: TimestampDialect | null
}

/** A platform's fields, as `POST /platforms` and `PUT /platform/<slug>` (and the CLI) send them. */
export interface PlatformFields {
  name?: string
  maxUsers?: number
  maxSpace?: number
  /** null: back to the installation's dialect (the field sent empty). */
  timestamps?: TimestampDialect | null
}

const TIMESTAMP_DIALECTS = ['iso8601', 'unix'] as const

/**
 * Reads and checks a platform's fields (412 naming every refused one), for the API and
 * `mediactl platform create|update` alike: the one place their rules are written.
 */
export function readPlatformFields(v: FieldReader): PlatformFields {
  const name = v.string('name', { required: true, max: 255 }) ?? undefined
  // The column is a 32-bit integer: larger counts would fail in the database (500 on PostgreSQL).
  const maxUsers = v.integer('max_users', { required: true, max: 2_147_483_647 }) ?? undefined
  const maxSpace = v.integer('max_space', { required: true }) ?? undefined
  const timestamps = v.oneOf('timestamps', TIMESTAMP_DIALECTS)
  v.done()
  return { name, maxUsers, maxSpace, timestamps }
}

/** The platform of `slug`, or a UserError saying how to find one (the CLI names platforms by slug). */
export async function namedPlatform(reader: Reader, slug: string): Promise<PlatformView> {
  const platform = await platformQueries.bySlug(reader, slug)
  if (!platform) {
    throw new UserError(`no platform "${slug}"`, {
      hint: 'list them with GET /platforms or create one with "mediactl platform create"',
    })
  }
  return platform
}

/** Applies checked changes (undefined: unchanged) to a platform. */
export async function updatePlatform(em: EntityManager, platform: Platform, changes: PlatformFields): Promise<void> {
  if (changes.name !== undefined) platform.name = changes.name
  if (changes.maxUsers !== undefined) platform.maxUsers = changes.maxUsers
  if (changes.maxSpace !== undefined) platform.maxSpace = changes.maxSpace
  if (changes.timestamps !== undefined) platform.timestamps = changes.timestamps
  await em.flush()
}

/** Creates a platform and lets plugins seed its defaults, in one transaction. */
export function createPlatform(emit: Emit, em: EntityManager, input: PlatformInput): Promise<Platform> {
  return retryOnConflict(() =>
    transaction(em, async (tx) => {
      const platform = tx.create(PlatformEntity, {
        ...input,
        slug: await freeSlug(tx, PlatformEntity, input.name),
        createdAt: new Date(),
      })
      await tx.flush()
      await emit('platform.created', { em: tx, platform })
      await tx.flush()
      return platform
    }),
  )
}

/** Deletes a platform and everything in it, in one transaction. */
export async function deletePlatform(emit: Emit, em: EntityManager, platform: Platform): Promise<void> {
  await transaction(em, async (tx) => {
    await emit('platform.deleting', { em: tx, platform })
    await emit('authz.objects-deleted', { em: tx, kind: 'platform', ids: [platform.id] })
    await tx.nativeDelete(PlatformEntity, { id: platform.id })
  })
}

/** The figures of platform info (committed data), gathered from the plugins that own them. */
export async function platformStats(emit: Emit, reader: Reader, platform: PlatformView): Promise<PlatformStats> {
  const stats: PlatformStats = { createdUsers: 0, usedSpace: 0 }
  await emit('platform.describe', { reader, platform, stats })
  return stats
}
