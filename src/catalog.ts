import type { PluginDefinition } from './kernel/index.js'
import identity from '../plugins/identity/index.js'
import files from '../plugins/files/index.js'
import metadata from '../plugins/metadata/index.js'
import platforms from '../plugins/platforms/index.js'
import root from '../plugins/root/index.js'
import stateRedis from '../plugins/state-redis/index.js'
import storageFs from '../plugins/storage-fs/index.js'
import storageS3 from '../plugins/storage-s3/index.js'

/** Every plugin shipped with mediactl; the `plugins` config key chooses which are enabled. */
export const CATALOG: PluginDefinition<never>[] = [
  root,
  platforms,
  identity,
  metadata,
  files,
  stateRedis,
  storageFs,
  storageS3,
] as PluginDefinition<never>[]
