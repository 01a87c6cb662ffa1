import type { EntityManager, Reader } from '../../src/kernel/index.js'
import type { Platform } from './platform.entity.js'
import type { PlatformView } from './platform.queries.js'

/** Figures other plugins add to platform info. */
export interface PlatformStats {
  /** Users of the platform (identity plugin). */
  createdUsers: number
  /** Bytes used by the platform's files, renditions included (file store plugin). */
  usedSpace: number
}

declare module '../../src/kernel/events.js' {
  interface KernelEvents {
    /** A platform was created, inside the creating transaction: seed its defaults. */
    'platform.created': { em: EntityManager; platform: Platform }
    /** A platform is about to be deleted, inside the deleting transaction: remove what it holds. */
    'platform.deleting': { em: EntityManager; platform: Platform }
    /** Platform info is being rendered: fill in the figures you own, from committed data. */
    'platform.describe': { reader: Reader; platform: PlatformView; stats: PlatformStats }
  }
}
