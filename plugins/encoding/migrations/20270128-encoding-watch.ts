import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to renditions reach every process's cache of the renditions answers show. */
export default watchMigration('20270128-encoding-watch', ['renditions'])
