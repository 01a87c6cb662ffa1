import type { MigrationDefinition } from '../../db/migration.js'
import init from './20261205-queue-inline-jobs.js'
import subject from './20261228-jobs-subject.js'

/**
 * The `jobs` table's migrations, owned by the kernel. The first kept its name from when the
 * inline queue owned the table, so installations that applied it do not apply it again.
 */
export const JOBS_MIGRATIONS: readonly MigrationDefinition[] = [init, subject]
