import { createLogger } from '../kernel/log.js'
import { type BootRequest, bootMigratedKernel } from './boot.js'

export interface PurgeResult {
  /** What each plugin removed, by name (expired uploads, stored objects of deleted files, ...). */
  removed: Record<string, number>
}

/** Removes what abandoned work left behind, once, now (the `maintenance.purge` event). */
export async function purgeCommand(options: BootRequest): Promise<PurgeResult> {
  const kernel = await bootMigratedKernel({ logger: createLogger('warn', 2), ...options })
  try {
    const report: Record<string, number> = {}
    await kernel.services.events.emit('maintenance.purge', { now: new Date(), report })
    return { removed: report }
  } finally {
    await kernel.close()
  }
}
