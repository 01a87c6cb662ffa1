import { PlatformEntity, createPlatform, type Platform } from '../../plugins/platforms/index.js'
import type { TimestampDialect } from '../kernel/index.js'
import { type BootRequest, withKernel } from './boot.js'

export interface PlatformSummary {
  slug: string
  name: string
  max_users: number
  max_space: number
  /** The platform's own date-time dialect; null: the installation's (`api.timestamps`). */
  timestamps: TimestampDialect | null
  url: string
}

function summary(platform: Platform, url: string): PlatformSummary {
  return {
    slug: platform.slug,
    name: platform.name,
    max_users: platform.maxUsers,
    max_space: platform.maxSpace,
    timestamps: platform.timestamps ?? null,
    url,
  }
}

/** What `platform update` may change; undefined leaves a value as it is. */
export interface PlatformChanges {
  name?: string
  maxUsers?: number
  maxSpace?: number
  /** null: back to the installation's dialect. */
  timestamps?: TimestampDialect | null
}

/** Changes a platform from the command line; null when there is no platform of that slug. */
export function updatePlatformCommand(
  options: BootRequest & { slug: string; changes: PlatformChanges },
): Promise<PlatformSummary | null> {
  return withKernel(options, async (kernel) => {
    const em = kernel.em()
    const platform = await em.findOne(PlatformEntity, { slug: options.slug })
    if (!platform) return null
    const { name, maxUsers, maxSpace, timestamps } = options.changes
    if (name !== undefined) platform.name = name
    if (maxUsers !== undefined) platform.maxUsers = maxUsers
    if (maxSpace !== undefined) platform.maxSpace = maxSpace
    if (timestamps !== undefined) platform.timestamps = timestamps
    await em.flush()
    return summary(platform, kernel.services.links.url('platform', platform.slug))
  })
}

/** Creates a platform (with its default profiles) from the command line. */
export function createPlatformCommand(
  options: BootRequest & { name: string; maxUsers: number; maxSpace: number; timestamps?: TimestampDialect | null },
): Promise<PlatformSummary> {
  return withKernel(options, async (kernel) => {
    const platform = await createPlatform(kernel.emit, kernel.em(), options)
    return summary(platform, kernel.services.links.url('platform', platform.slug))
  })
}
