import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to streams reach every process's caches of their parents and visibility. */
export default watchMigration('20270127-streams-watch', ['streams'])
