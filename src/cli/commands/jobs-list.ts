import { Flags } from '@oclif/core'
import { listJobs } from '../../app/jobs.js'
import { JOB_STATES, type JobState } from '../../kernel/index.js'
import { BaseCommand } from '../base-command.js'
import { table } from '../format.js'

/** Longest last error shown in the table (its first line); --json has it whole. */
const ERROR_WIDTH = 60

export default class JobsList extends BaseCommand<typeof JobsList> {
  static override summary = 'List background jobs (encoding, ...), newest first.'
  static override description = `Shows each job's state (waiting, running, succeeded, failed), attempts, progress, file and last error.
Failed jobs can be queued again with "mediactl jobs retry <id>".`

  static override examples = [
    '<%= config.bin %> jobs list',
    '<%= config.bin %> jobs list --state failed',
    '<%= config.bin %> jobs list --limit 500 --json',
  ]

  static override flags = {
    state: Flags.string({ description: 'Only jobs in this state', options: [...JOB_STATES] }),
    limit: Flags.integer({ description: 'Most jobs listed', default: 50, min: 1, max: 10000 }),
  }

  async run() {
    const jobs = await listJobs({
      ...this.configOptions(),
      state: this.flags.state as JobState | undefined,
      limit: this.flags.limit,
    })
    if (!jobs.length) {
      this.log(this.flags.state ? `No ${this.flags.state} jobs.` : 'No jobs.')
    } else {
      this.log(
        table([
          ['ID', 'TYPE', 'STATE', 'ATTEMPTS', 'PROGRESS', 'FILE', 'LAST ERROR'],
          ...jobs.map((job) => [
            job.id,
            job.type,
            job.state,
            `${job.attempts}/${job.max_attempts}`,
            `${Math.floor(job.progress)}%`,
            job.file ?? '',
            shorten(job.last_error ?? ''),
          ]),
        ]),
      )
    }
    return { jobs }
  }
}

function shorten(text: string): string {
  const line = text.split('\n')[0]!
  return line.length > ERROR_WIDTH ? `${line.slice(0, ERROR_WIDTH - 1)}…` : line
}
