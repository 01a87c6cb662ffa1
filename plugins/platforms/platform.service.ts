import { uniqueSlug } from '../../src/shared/slug.js'
import type { EntityManager, KernelServices } from '../../src/kernel/index.js'
import { type Platform, PlatformEntity } from './platform.entity.js'
import type { PlatformStats } from './platform.events.js'

export interface PlatformInput {
  name: string
  maxUsers: number
  maxSpace: number
}

/** Creates a platform and lets plugins seed its defaults, in one transaction. */
export async function createPlatform(
  services: KernelServices,
  em: EntityManager,
  input: PlatformInput,
): Promise<Platform> {
  return em.transactional(async (tx) => {
    const slug = await uniqueSlug(input.name, async (s) => (await tx.count(PlatformEntity, { slug: s })) > 0)
    const platform = tx.create(PlatformEntity, { ...input, slug, createdAt: new Date() })
    await tx.flush()
    await services.events.emit('platform.created', { em: tx as EntityManager, platform })
    await tx.flush()
    return platform
  })
}

/** Deletes a platform and everything in it, in one transaction. */
export async function deletePlatform(services: KernelServices, em: EntityManager, platform: Platform): Promise<void> {
  await em.transactional(async (tx) => {
    await services.events.emit('platform.deleting', { em: tx as EntityManager, platform })
    await tx.nativeDelete(PlatformEntity, { id: platform.id })
  })
}

/** The figures of platform info, gathered from the plugins that own them. */
export async function platformStats(
  services: KernelServices,
  em: EntityManager,
  platform: Platform,
): Promise<PlatformStats> {
  const stats: PlatformStats = { createdUsers: 0, usedSpace: 0 }
  await services.events.emit('platform.describe', { em, platform, stats })
  return stats
}
