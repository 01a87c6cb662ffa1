import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to files and folders reach every process's lookups (ctx.cache) that read them. */
export default watchMigration('20270129-files-watch', ['files', 'directories'])
