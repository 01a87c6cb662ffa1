import { CronJob } from 'cron'
import type { Logger } from '../../src/kernel/index.js'

/** Runs `run` on `schedule` (cron syntax) until stopped; a failing run is logged, the next one still comes. */
export function schedulePurge(schedule: string, log: Logger, run: () => Promise<number>): CronJob {
  let running = false
  return CronJob.from({
    cronTime: schedule,
    start: true,
    onTick: async () => {
      if (running) return
      running = true
      try {
        const removed = await run()
        if (removed > 0) log.info({ removed }, 'removed expired recorder codes')
      } catch (error) {
        log.error({ err: error }, 'removing expired recorder codes failed; it runs again on schedule')
      } finally {
        running = false
      }
    },
  })
}
