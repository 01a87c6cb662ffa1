import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to files and folders reach every process's kept answers that show them (answer-cache.ts). */
export default watchMigration('20270129-files-watch', ['files', 'directories'])
