import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to widgets reach every process's lookups (ctx.cache) that read them. */
export default watchMigration('20270129-widgets-watch', ['widgets'])
