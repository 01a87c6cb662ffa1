import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to widgets reach every process's kept answers that list them (answer-cache.ts). */
export default watchMigration('20270129-widgets-watch', ['widgets'])
