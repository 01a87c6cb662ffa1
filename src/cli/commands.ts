import Doctor from './commands/doctor.js'
import Init from './commands/init.js'
import Migrate from './commands/migrate.js'
import PlatformCreate from './commands/platform-create.js'
import Purge from './commands/purge.js'
import Seed from './commands/seed.js'
import Serve from './commands/serve.js'
import UserCreate from './commands/user-create.js'
import UserKey from './commands/user-key.js'

/** Every CLI command, listed explicitly (oclif "explicit" strategy); topics use spaces. */
export const COMMANDS = {
  init: Init,
  migrate: Migrate,
  seed: Seed,
  serve: Serve,
  'user:create': UserCreate,
  'user:key': UserKey,
  'platform:create': PlatformCreate,
  purge: Purge,
  doctor: Doctor,
}
