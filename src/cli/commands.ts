import Doctor from './commands/doctor.js'
import Init from './commands/init.js'
import JobsCancel from './commands/jobs-cancel.js'
import JobsList from './commands/jobs-list.js'
import JobsRetry from './commands/jobs-retry.js'
import Migrate from './commands/migrate.js'
import Purge from './commands/purge.js'
import Seed from './commands/seed.js'
import Serve from './commands/serve.js'
import Worker from './commands/worker.js'
import { pluginOclifCommands } from './plugin-command.js'

/**
 * Every CLI command, listed explicitly (oclif "explicit" strategy); topics use spaces. The
 * lifecycle's are here; the plugins declare theirs (`commands` of their manifests).
 */
export const COMMANDS = {
  init: Init,
  migrate: Migrate,
  seed: Seed,
  serve: Serve,
  worker: Worker,
  purge: Purge,
  'jobs:cancel': JobsCancel,
  'jobs:list': JobsList,
  'jobs:retry': JobsRetry,
  doctor: Doctor,
  ...pluginOclifCommands(),
}
