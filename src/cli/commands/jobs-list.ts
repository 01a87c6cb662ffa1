import { Flags } from '@oclif/core'
import { listJobs } from '../../app/jobs.js'
import { JOB_STATES, type JobState } from '../../kernel/index.js'
import { firstLine } from '../../shared/text.js'
import { BaseCommand } from '../base-command.js'
import { table } from '../format.js'

/** Longest last error shown in the table (its first line); --json has it whole. */
const ERROR_WIDTH = 60

export default class JobsList extends BaseCommand<typeof JobsList> {
  static override summary = 'List background jobs (encoding, logo insertion), newest first.'
  static override description = `Shows each job's file (slug), kind, state (waiting, running, succeeded, failed, cancelled), attempt n/m, progress, next try and last error. A waiting job with a next try is backing off after a failed or interrupted run. Failed and cancelled jobs can be queued again with "mediactl jobs retry <file-slug|job>"; live ones stopped with "mediactl jobs cancel <file-slug|job>".`

  static override examples = [
    '<%= config.bin %> jobs list',
    '<%= config.bin %> jobs list --state failed',
    '<%= config.bin %> jobs list --file holiday-video',
    '<%= config.bin %> jobs list --limit 500 --json',
  ]

  static override flags = {
    state: Flags.string({ description: 'Only jobs in this state', options: [...JOB_STATES] }),
    file: Flags.string({ description: 'Only the jobs of this file (its slug)' }),
    limit: Flags.integer({ description: 'Most jobs listed', default: 50, min: 1, max: 10000 }),
  }

  async run() {
    const jobs = await listJobs({
      ...this.configOptions(),
      state: this.flags.state as JobState | undefined,
      slug: this.flags.file,
      limit: this.flags.limit,
    })
    if (!jobs.length) {
      this.log(this.flags.state ? `No ${this.flags.state} jobs.` : 'No jobs.')
    } else {
      this.log(
        table([
          ['JOB', 'FILE', 'KIND', 'STATE', 'ATTEMPT', 'PROGRESS', 'NEXT TRY', 'LAST ERROR'],
          ...jobs.map((job) => [
            job.id,
            job.file ?? '',
            job.type,
            job.state,
            `${job.attempts}/${job.max_attempts}`,
            `${Math.floor(job.progress)}%`,
            job.next_try && job.attempts > 0 ? job.next_try.replace(/\.\d+Z$/, 'Z') : '',
            firstLine(job.last_error ?? '', ERROR_WIDTH),
          ]),
        ]),
      )
    }
    return { jobs }
  }
}
