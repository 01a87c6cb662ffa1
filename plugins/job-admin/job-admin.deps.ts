import type { JobsAdmin } from '../../src/kernel/index.js'

/** What the job-admin plugin's routes get from `register` (docs/architecture.md, How a plugin gets what it uses). */
export interface JobAdminDeps {
  /** Every plugin's jobs, as the CLI's `jobs` commands see and change them (`ctx.jobs`). */
  readonly jobs: JobsAdmin
}
