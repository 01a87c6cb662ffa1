import Doctor from './commands/doctor.js'
import Init from './commands/init.js'
import JobsCancel from './commands/jobs-cancel.js'
import JobsList from './commands/jobs-list.js'
import JobsRetry from './commands/jobs-retry.js'
import Migrate from './commands/migrate.js'
import PlatformCreate from './commands/platform-create.js'
import PlatformUpdate from './commands/platform-update.js'
import Purge from './commands/purge.js'
import Seed from './commands/seed.js'
import Serve from './commands/serve.js'
import UserCreate from './commands/user-create.js'
import UserKey from './commands/user-key.js'
import WebhooksCreate from './commands/webhooks-create.js'
import WebhooksDelete from './commands/webhooks-delete.js'
import WebhooksList from './commands/webhooks-list.js'
import Worker from './commands/worker.js'

/** Every CLI command, listed explicitly (oclif "explicit" strategy); topics use spaces. */
export const COMMANDS = {
  init: Init,
  migrate: Migrate,
  seed: Seed,
  serve: Serve,
  worker: Worker,
  'user:create': UserCreate,
  'user:key': UserKey,
  'platform:create': PlatformCreate,
  'platform:update': PlatformUpdate,
  purge: Purge,
  'jobs:cancel': JobsCancel,
  'jobs:list': JobsList,
  'jobs:retry': JobsRetry,
  'webhooks:list': WebhooksList,
  'webhooks:create': WebhooksCreate,
  'webhooks:delete': WebhooksDelete,
  doctor: Doctor,
}
