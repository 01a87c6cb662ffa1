import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to channels reach every process's cache of what a media's online channels offer. */
export default watchMigration('20270127-channels-watch', ['channels'])
