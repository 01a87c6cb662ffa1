import { type Kernel, UserError, jobConcurrency } from '../kernel/index.js'
import { type BootRequest, withKernel } from './boot.js'
import { PendingMigrationsError } from './serve.js'

export interface WorkOptions extends BootRequest {
  /** Most jobs this process runs at once (default `jobs.concurrency`). */
  concurrency?: number
}

export interface Working {
  kernel: Kernel
  /** The job types this process runs. */
  types: string[]
  /** Most jobs run at once. */
  concurrency: number
  /** Stops gracefully: jobs in flight are aborted and put back (they run again elsewhere), the database closes. */
  stop(): Promise<void>
}

/**
 * Boots the kernel and runs the declared jobs through the queue backend, without serving
 * HTTP (`mediactl worker`). Waits for the database and Redis while they do not answer (within
 * `database.connect_wait` and `redis_connect_wait`), then refuses while migrations are pending,
 * like `serve`. With
 * queue-bullmq this is how jobs run; with queue-inline it adds a consumer of the database
 * queue beside the serving processes.
 */
export async function work(options: WorkOptions): Promise<Working> {
  if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
    throw new UserError('concurrency is an integer of at least 1')
  }
  return withKernel({ ...options, pending: 'allow', keepOpen: true }, async (kernel) => {
    const pending = await kernel.whileStarting(() => kernel.pendingMigrations())
    if (pending.length) {
      throw new PendingMigrationsError(
        `${pending.length} migration(s) pending (${pending.join(', ')}): run "mediactl migrate" first`,
      )
    }
    const { ports } = kernel.services
    if (!ports.has('queue')) {
      throw new UserError('no queue backend is enabled: add queue-bullmq (or queue-inline) to the "plugins" config key')
    }
    if (!kernel.jobTypes.size) throw new UserError('no enabled plugin declares jobs: there is nothing to run')
    const concurrency = options.concurrency ?? jobConcurrency(kernel.config.jobs.concurrency)
    await kernel.serveMetrics()
    await kernel.startJobs({ concurrency })
    return {
      kernel,
      types: [...kernel.jobTypes.handlers().keys()],
      concurrency,
      stop: () => kernel.close(),
    }
  })
}
