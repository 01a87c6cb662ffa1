import { createPlatform } from '../../plugins/platforms/index.js'
import { createLogger } from '../kernel/log.js'
import { type BootRequest, bootMigratedKernel } from './boot.js'

export interface PlatformSummary {
  slug: string
  name: string
  max_users: number
  max_space: number
  url: string
}

/** Creates a platform (with its default profiles) from the command line. */
export async function createPlatformCommand(
  options: BootRequest & { name: string; maxUsers: number; maxSpace: number },
): Promise<PlatformSummary> {
  const kernel = await bootMigratedKernel({ logger: createLogger('warn', 2), ...options })
  try {
    const platform = await createPlatform(kernel.services, kernel.em(), options)
    return {
      slug: platform.slug,
      name: platform.name,
      max_users: platform.maxUsers,
      max_space: platform.maxSpace,
      url: kernel.services.links.url('platform', platform.slug),
    }
  } finally {
    await kernel.close()
  }
}
