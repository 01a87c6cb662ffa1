import { watchMigration } from '../../../src/kernel/index.js'

/** Changes to resources (plays' view counts included) reach every process's lookups (ctx.cache). */
export default watchMigration('20270129-resources-watch', ['resources', 'resource_buckets'])
