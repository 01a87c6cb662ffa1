import { Args } from '@oclif/core'
import { cancelJob } from '../../app/jobs.js'
import { BaseCommand } from '../base-command.js'

export default class JobsCancel extends BaseCommand<typeof JobsCancel> {
  static override summary = 'Cancel a waiting or running job.'
  static override description = `Names the job by its file's slug (that file's live job) or by its number (the JOB column of "mediactl jobs list"). A waiting job never runs; a running one is aborted at its next heartbeat (within a third of jobs.lease). Its file shows failed, "cancelled by an operator". "mediactl jobs retry" queues it again.`

  static override examples = ['<%= config.bin %> jobs cancel holiday-video', '<%= config.bin %> jobs cancel 42 --json']

  static override args = {
    target: Args.string({ description: 'The file slug, or the job number', required: true }),
  }

  async run() {
    const job = await cancelJob({ ...this.configOptions(), target: this.args.target })
    this.log(`Job ${job.id} (${job.type}${job.file ? ` of ${job.file}` : ''}) is cancelled.`)
    return job
  }
}
