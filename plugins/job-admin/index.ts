import { definePlugin } from '../../src/kernel/index.js'
import '../platforms/index.js'
import '../files/index.js'
import { jobRoutes } from './job.routes.js'
import type { JobAdminDeps } from './job-admin.deps.js'

/**
 * Background jobs through the API, an extension of the contract (docs/api/jobs.md): the
 * encodings and logo insertions of a platform's files listed, retried and cancelled by its
 * administrators, every job by the installation's: what `mediactl jobs` does, for the console.
 */
export default definePlugin({
  name: 'job-admin',
  dependsOn: ['platforms', 'files'],
  register(ctx) {
    const deps: JobAdminDeps = { jobs: ctx.jobs }
    ctx.routes((r) => jobRoutes(r, deps))
  },
})
