import { LockMode } from '@mikro-orm/core'
import {
  type EntityManager,
  type Emit,
  type Reader,
  freeSlug,
  notFound,
  retryOnConflict,
  type TimestampDialect,
  transaction,
} from '../../src/kernel/index.js'
import { type Platform, PlatformEntity } from './platform.entity.js'
import type { PlatformStats } from './platform.events.js'
import type { PlatformView } from './platform.queries.js'

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
