import { type BootRequest, withKernel } from './boot.js'

export interface PurgeResult {
  /** What each plugin removed, by name (expired uploads, stored objects of deleted files, ...). */
  removed: Record<string, number>
}

/** Removes what abandoned work left behind, once, now (the `maintenance.purge` event). */
export function purgeCommand(options: BootRequest): Promise<PurgeResult> {
  return withKernel(options, async (kernel) => {
    const report: Record<string, number> = {}
    await kernel.services.events.emit('maintenance.purge', { now: new Date(), report })
    return { removed: report }
  })
}
