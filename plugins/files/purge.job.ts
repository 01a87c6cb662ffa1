import { CronJob } from 'cron'
import type { EntityManager, Logger } from '../../src/kernel/index.js'
import { PendingUploadEntity } from './pending-upload.entity.js'
import { emptyTrash, trash } from './trash.service.js'
import type { FilesDeps } from './files.deps.js'

/** Extra cleanup steps (expired tus uploads), each answering how many things it removed. */
export type PurgeStep = (now: Date) => Promise<number>

/** What one purge removed. */
export interface PurgeReport {
  /** Chunked uploads idle for longer than `files.pending_ttl`. */
  pendingUploads: number
  /** Removed by the extra steps (expired tus uploads). */
  other: number
  /** Trashed stored bytes removed (prefixes or keys). */
  trash: number
}

/**
 * Removes what uploads left behind: chunked uploads idle past `files.pending_ttl` (rows and
 * pieces), the extra steps, then the trash. Safe to run in several processes at once.
 */
export async function purge(
  deps: FilesDeps,
  em: EntityManager,
  steps: readonly PurgeStep[],
  now = new Date(),
): Promise<PurgeReport> {
  const cutoff = new Date(now.getTime() - deps.config.pending_ttl * 1000)
  const fork = em.fork()
  const expired = await fork.find(PendingUploadEntity, { updatedAt: { $lt: cutoff } })
  if (expired.length) {
    await fork.begin()
    try {
      trash(
        fork,
        expired.flatMap((upload) => upload.pieces),
      )
      await fork.nativeDelete(PendingUploadEntity, { id: { $in: expired.map((upload) => upload.id) } })
      await fork.commit()
    } catch (error) {
      await fork.rollback()
      throw error
    }
  }
  let other = 0
  for (const step of steps) other += await step(now)
  return { pendingUploads: expired.length, other, trash: await emptyTrash(deps, em) }
}

/** Runs `run` on `schedule` (cron syntax) until stopped; a failing run is logged, the next one still comes. */
export function schedulePurge(schedule: string, log: Logger, run: () => Promise<Record<string, number>>): CronJob {
  let running = false
  return CronJob.from({
    cronTime: schedule,
    start: true,
    onTick: async () => {
      if (running) return
      running = true
      try {
        const report = await run()
        if (Object.values(report).some((count) => count > 0)) log.info({ removed: report }, 'purged')
      } catch (error) {
        log.error({ err: error }, 'purge failed; it runs again on schedule')
      } finally {
        running = false
      }
    },
  })
}
