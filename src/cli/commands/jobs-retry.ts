import { Args } from '@oclif/core'
import { retryJob } from '../../app/jobs.js'
import { BaseCommand } from '../base-command.js'

export default class JobsRetry extends BaseCommand<typeof JobsRetry> {
  static override summary = 'Queue a failed or cancelled job again.'
  static override description = `Names the job by its file's slug (that file's newest failed or cancelled job) or by its number (the JOB column of "mediactl jobs list"). The job starts over with all its attempts; a consuming process runs it at once.`

  static override examples = ['<%= config.bin %> jobs retry holiday-video', '<%= config.bin %> jobs retry 42 --json']

  static override args = {
    target: Args.string({ description: 'The file slug, or the job number', required: true }),
  }

  async run() {
    const job = await retryJob({ ...this.configOptions(), target: this.args.target })
    this.log(
      `Job ${job.id} (${job.type}${job.file ? ` of ${job.file}` : ''}) is waiting again: ${job.max_attempts} attempt(s).`,
    )
    return job
  }
}
