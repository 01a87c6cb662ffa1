import { Args } from '@oclif/core'
import { retryJob } from '../../app/jobs.js'
import { BaseCommand } from '../base-command.js'

export default class JobsRetry extends BaseCommand<typeof JobsRetry> {
  static override summary = 'Queue a failed job again.'
  static override description = `The job starts over with all its attempts; a serving process runs it at its next look.
Only failed jobs can be retried.`

  static override examples = ['<%= config.bin %> jobs retry 42', '<%= config.bin %> jobs retry 42 --json']

  static override args = {
    id: Args.string({ description: 'Id of the job (see "mediactl jobs list --state failed")', required: true }),
  }

  async run() {
    const job = await retryJob({ ...this.configOptions(), id: this.args.id })
    this.log(`Job ${job.id} (${job.type}) is waiting again: ${job.max_attempts} attempt(s).`)
    return job
  }
}
