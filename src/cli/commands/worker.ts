import { Flags } from '@oclif/core'
import { readConfig } from '../../app/boot.js'
import { work } from '../../app/worker.js'
import { createLogger } from '../../kernel/index.js'
import { guardProcess, stopOnSignal } from '../../app/process-guards.js'
import { BaseCommand } from '../base-command.js'

export default class Worker extends BaseCommand<typeof Worker> {
  static override summary = 'Run background jobs (encoding, ...) without serving HTTP.'
  static override description = [
    'Runs the jobs the enabled plugins declare through the queue backend: with queue-bullmq, on any machine that reaches Redis, the database and the storage; with queue-inline, beside the serving processes. Refuses to start while migrations are pending.',
    'SIGTERM or SIGINT stops it gracefully: the jobs in flight are told to stop and put back (they run again elsewhere; the interrupted run does not count), then the database closes.',
  ].join('\n\n')

  static override examples = ['<%= config.bin %> worker', '<%= config.bin %> worker --concurrency 4']

  static override flags = {
    concurrency: Flags.integer({
      description: 'Most jobs run at once [default: jobs.concurrency, 0 meaning one per two CPU cores]',
      min: 1,
    }),
  }

  async run() {
    const working = await work({
      ...this.configOptions(),
      // With --json, stdout carries only the JSON line: the log goes to stderr.
      logger: this.jsonEnabled() ? createLogger(readConfig(this.configOptions()).log_level, 2) : undefined,
      concurrency: this.flags.concurrency,
    })
    guardProcess(working.kernel.log)
    // Catch the signals before announcing readiness: whoever waits for the line below may stop us at once.
    const stopped = stopOnSignal(() => working.stop(), working.kernel.log)
    this.log(
      `mediactl worker running jobs (${working.types.join(', ')}), ${working.concurrency} at a time; stop with Ctrl-C`,
    )
    if (this.jsonEnabled()) {
      process.stdout.write(JSON.stringify({ types: working.types, concurrency: working.concurrency }) + '\n')
    }
    await stopped
    this.log('mediactl worker stopped.')
  }
}
